#!/usr/bin/env bash
# `make run-qemu`: the workload model's firmware on a Cortex-M3 under QEMU
# (mps2-an385), streaming UIA packets over UART0, which QEMU connects to
# `tracewire record` listening on loopback TCP; the recorder's commands
# (info, mask, start, stop) reach the firmware over the same UART. The
# firmware ends the scenario itself (semihosting exit), QEMU closes the
# socket and the recorder closes the trace.
# Usage: scripts/run-qemu.sh <builddir>   (SCENARIO=demo SEED=1 by default)
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:?usage: scripts/run-qemu.sh <builddir>}
scenario=${SCENARIO:-demo}; seed=${SEED:-1}
tw=$b/tools/tracewire
[ -x "$tw" ] || { echo "run-qemu.sh: $tw not built (run: make build BUILD=$b)" >&2; exit 1; }
command -v qemu-system-arm >/dev/null ||
  { echo "run-qemu.sh: qemu-system-arm not found (Debian: qemu-system-arm)" >&2; exit 1; }

make -s -C firmware OUT="$PWD/$b/firmware" >/dev/null
fw=$b/firmware/fw.elf
mkdir -p out
trace=out/qemu-$scenario.twt
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
[ -n "$port" ] || { echo "run-qemu: tracewire record did not start listening" >&2; exit 1; }

echo "run-qemu: firmware $fw, scenario $scenario, seed $seed, UART0 -> tcp://127.0.0.1:$port"
rc=0
timeout 120 qemu-system-arm -M mps2-an385 -nographic -monitor none -semihosting \
  -kernel "$fw" -serial "tcp:127.0.0.1:$port" -append "--scenario $scenario --seed $seed" || rc=$?
wait $rec || { echo "run-qemu: tracewire record failed" >&2; exit 1; }
trap - EXIT
rm -f "$log"
[ $rc -eq 0 ] || { echo "run-qemu: firmware exited with status $rc (124: timed out)" >&2; exit 1; }
"$tw" stats "$trace"
echo "run-qemu: wrote $trace (events: $tw print $trace)"
