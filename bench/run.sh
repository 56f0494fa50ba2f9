#!/usr/bin/env bash
# Run every benchmark against the peers it is compared with (one line per
# benchmark). Usage: bench/run.sh <builddir> [--smoke]
# --smoke: small sizes, for CI, which checks that every benchmark builds,
# runs and finds its peer; its figures are not the measurements.
set -euo pipefail
b=${1:-build}
small=0
[ "${2:-}" = "--smoke" ] && small=1
pick() { if [ $small = 1 ]; then echo "$2"; else echo "$1"; fi; }
"$b/bench/bench_logger"   # ring put vs LTTng-UST tracepoint (starts its own session)
"$b/bench/bench_decode" "$(pick 512 8)"   # host decode MB/s and events/s vs memcpy of the same bytes
"$b/bench/bench_mti" "$(pick 20 1)"   # MTI dispatch per delivered event vs a direct call
"$b/bench/bench_analysis" "$(pick 10000000 100000)"   # analyses and the HTML report on a 10M-event trace vs decode+model
"$b/bench/bench_export" "$(pick 64 4)"     # CTF/Perfetto export, and reading vs babeltrace2 reading the CTF
