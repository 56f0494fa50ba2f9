#!/usr/bin/env bash
# `make run`: the best end-to-end path that exists. Until the RTOS workload
# demo lands this is examples/wire-demo: a batch of RTOS events encoded
# into UIA event packets (one little-endian and one big-endian core),
# written to <builddir>/wire-demo.uia, parsed back and printed.
# Usage: scripts/run-demo.sh <builddir>
set -euo pipefail
b=${1:?usage: scripts/run-demo.sh <builddir>}
demo="$b/examples/wire-demo/tw_wire_demo"
[ -x "$demo" ] || { echo "run-demo.sh: $demo not built (run: make build BUILD=$b)" >&2; exit 1; }
exec "$demo" "$b/wire-demo.uia"
