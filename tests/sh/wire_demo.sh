#!/usr/bin/env bash
# examples/wire-demo (the first end-to-end path; `make run` is now the RTOS
# demo, tests/sh/demo_summary.sh): it runs, exits 0, decodes every event it
# sent, and the file it wrote is the packets it printed (sizes add up).
set -euo pipefail
b=$1 src=$2
out=$("$b/examples/wire-demo/tw_wire_demo" "$b/wire-demo.uia")
echo "$out"
grep -q "all 18 events decoded intact" <<<"$out"
[ "$(grep -c '^  core ' <<<"$out")" -eq 18 ]
sum=$(grep -o ', [0-9]* bytes,' <<<"$out" | awk '{s += $2} END {print s}')
[ "$sum" -eq "$(stat -c %s "$b/wire-demo.uia")" ]
grep -q 'payload big-endian' <<<"$out"
# Golden bytes (barectf style): the scenario's packets must not change by
# accident. After an intended wire change, regenerate with
#   build/examples/wire-demo/tw_wire_demo tests/golden/wire-demo.uia
# and say why in the commit.
cmp "$b/wire-demo.uia" "$src/tests/golden/wire-demo.uia" || {
  echo "wire-demo.uia differs from tests/golden/wire-demo.uia (see the comment above)" >&2
  exit 1
}
