#!/usr/bin/env bash
# The modelled RTOS target on the host streaming to `tracewire record` over
# loopback TCP: the recording half of `make run` (exports, report and
# summary come on top of the trace it writes). Prints the trace's stats.
# Usage: scripts/run-sim.sh <builddir> [trace.twt]  (SCENARIO=demo SEED=1)
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:?usage: scripts/run-sim.sh <builddir> [trace.twt]}
scenario=${SCENARIO:-demo}; seed=${SEED:-1}
trace=${2:-out/sim-$scenario.twt}
tw=$b/tools/tracewire
target=$b/examples/demo-target/tw-demo-target
for x in "$tw" "$target"; do
  [ -x "$x" ] || { echo "run-sim.sh: $x not built (run: make build BUILD=$b)" >&2; exit 1; }
done
mkdir -p "$(dirname "$trace")"
log=$(mktemp)
"$tw" record --from tcp-listen://127.0.0.1:0 -o "$trace" -q 2> >(tee "$log" >&2) &
rec=$!
trap 'kill $rec 2>/dev/null || true; rm -f "$log"' EXIT
port=
for _ in $(seq 100); do  # the recorder prints the port it listens on
  port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$log" | head -1)
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { echo "run-sim.sh: tracewire record did not start listening" >&2; exit 1; }
"$target" --scenario "$scenario" --seed "$seed" --connect "tcp://127.0.0.1:$port"
wait $rec || { echo "run-sim.sh: tracewire record failed" >&2; exit 1; }
trap - EXIT
rm -f "$log"
"$tw" stats "$trace"
echo "run-sim: wrote $trace (events: $tw print $trace)"
