#!/usr/bin/env bash
# Commands from the host reach the firmware over the same UART: QEMU's UART0
# is connected to `tracewire record` (loopback TCP), which sets the mask to
# TaskSwitch only and, after one second, sends STOP. The firmware runs the
# pipeline with --until-stop (paced to real time, else bounded at 10 s of
# model time), so it only ends early because STOP arrived. Checks: both
# exit 0; the trace has one TraceStart and one TraceStop whose reason is 0
# (command), no transport loss; after the mask change only TaskSwitch
# events flow: the other kinds stop in the first half of the run (the
# mask change comes within a few round trips; the run lasts a second).
# Args: build dir, source dir. Skips (77) without qemu/arm gcc, fails in CI.
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd)
tmp=$(mktemp -d)
rec=
cleanup() { [ -n "$rec" ] && kill "$rec" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT

need() {
  command -v "$1" >/dev/null && return 0
  echo "qemu_commands: $1 not found (Debian package: $2)" >&2
  [ "${CI:-}" = true ] && exit 1
  echo "qemu_commands: SKIPPED" >&2; exit 77
}
need qemu-system-arm qemu-system-arm
need arm-none-eabi-gcc gcc-arm-none-eabi
tw=$build/tools/tracewire
dump=$build/examples/demo-target/tw-demo-dump
[ -x "$tw" ] && [ -x "$dump" ] || { echo "qemu_commands: tracewire and tw-demo-dump must be built" >&2; exit 1; }

make -s -C "$src/firmware" OUT="$tmp/fw" >/dev/null

"$tw" record --from tcp-listen://127.0.0.1:0 -o "$tmp/t.twt" -q --mask 0x8 --duration 1 \
  2> "$tmp/rec.err" &
rec=$!
port=
for _ in $(seq 100); do
  port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$tmp/rec.err" | head -1)
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { echo "qemu_commands: recorder did not listen:" >&2; cat "$tmp/rec.err" >&2; exit 1; }

start=$(date +%s)
rc=0
timeout 30 qemu-system-arm -M mps2-an385 -nographic -monitor none -semihosting \
  -kernel "$tmp/fw/fw.elf" -serial "tcp:127.0.0.1:$port" \
  -append "--scenario pipeline --seed 5 --until-stop" || rc=$?
elapsed=$(( $(date +%s) - start ))
wait "$rec" || { echo "qemu_commands: tracewire record failed:" >&2; cat "$tmp/rec.err" >&2; exit 1; }
rec=
[ $rc -eq 0 ] || { echo "qemu_commands: firmware exited $rc (124: timed out)" >&2; exit 1; }

"$dump" "$tmp/t.twt" > "$tmp/ev.txt" 2> "$tmp/sum.txt"
read -r _ _ packets _ events _ drops _ lost _ unexpl _ names _ starts _ stops _ _ _ reason < \
  <(grep '^#' "$tmp/sum.txt")
ts=$(awk '$2 == 4' "$tmp/ev.txt" | wc -l)
other=$(awk '$2 != 4' "$tmp/ev.txt" | wc -l)
last_other=$(awk '$2 != 4 { t = $1 } END { print t + 0 }' "$tmp/ev.txt")
last=$(awk '{ t = $1 } END { print t + 0 }' "$tmp/ev.txt")
echo "qemu_commands: ${elapsed}s, $packets packets, $ts TaskSwitch, $other other events," \
     "(the last at $last_other of $last us), starts $starts stops $stops (reason $reason)," \
     "lost $lost"
# reason 0: the STOP command ended the run (1 would be the firmware's own end)
[ "$starts" -ge 1 ] && [ "$stops" -eq 1 ] && [ "$reason" -eq 0 ] && [ "$lost" -eq 0 ] && [ "$unexpl" -eq 0 ] &&
  [ "$ts" -gt 1000 ] && [ "$last_other" -lt $((last / 2)) ] ||
  { echo "qemu_commands: unexpected trace: $(cat "$tmp/sum.txt")" >&2; exit 1; }
