#!/usr/bin/env bash
# The transports' sustained throughput from a Cortex-M3 under QEMU
# (mps2-an385), run by `make bench-target`: the firmware floods MutexEvents
# through the kernel logger and the streamer (firmware/main.c --flood) and
# `tracewire record` takes them
#   - over UART0 (QEMU's -serial tcp to record --from tcp-listen://), and
#   - over RTT through QEMU's gdbstub (record --from rtt+gdb://), which
#     halts the target for every poll (QEMU 7.2 reads memory only while the
#     CPU is stopped): also printed, what those halts cost the target.
# Bytes per second of wall time, from record's own count and clock. Real
# time under a shared machine: numbers move by 10-20 % from run to run.
# Usage: scripts/bench-rtt.sh [builddir]   BENCH_RTT_EVENTS (default 200000)
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:-build}
events=${BENCH_RTT_EVENTS:-200000}
tw=$b/tools/tracewire
[ -x "$tw" ] || { echo "bench-rtt: $tw not built (make build)" >&2; exit 1; }
out=build-arm-bench/rtt; mkdir -p "$out"
make -s -C firmware OUT="$PWD/$out/fw" > /dev/null
fw=$out/fw/fw.elf

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
listening() { grep -q ":$(printf '%04X' "$1") [0-9A-F]*:[0-9A-F]* 0A" /proc/net/tcp; }

# UART: record listens, QEMU connects its serial port
rm -f "$out/uart.twt"
: > "$out/uart.log" # empty before the background recorder writes its port there
"$tw" record --from tcp-listen://127.0.0.1:0 --no-commands -o "$out/uart.twt" 2> "$out/uart.log" &
rec=$!
trap 'kill $rec 2>/dev/null || true' EXIT
port=
for _ in $(seq 200); do
  port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$out/uart.log" | head -1)
  [ -n "$port" ] && break; sleep 0.05
done
[ -n "$port" ] || { cat "$out/uart.log" >&2; exit 1; }
timeout 300 qemu-system-arm -M mps2-an385 -nographic -monitor none -semihosting-config enable=on,target=native \
  -kernel "$fw" -serial "tcp:127.0.0.1:$port" -append "--flood $events" > "$out/uart-qemu.log" 2>&1 ||
  { cat "$out/uart-qemu.log" >&2; echo "bench-rtt: the UART run failed" >&2; exit 1; }
wait $rec || { cat "$out/uart.log" >&2; exit 1; }
trap - EXIT

# RTT: QEMU waits for the debugger, record attaches through the gdbstub
rm -f "$out/rtt.twt"
gport=$(free_port)
timeout 300 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial null \
  -semihosting-config enable=on,target=native -gdb "tcp:127.0.0.1:$gport" -S \
  -kernel "$fw" -append "--flood $events --transport rtt" > "$out/rtt-qemu.log" 2>&1 &
qemu=$!
trap 'kill $qemu 2>/dev/null || true' EXIT
for _ in $(seq 200); do listening "$gport" && break; sleep 0.05; done
"$tw" record --from "rtt+gdb://127.0.0.1:$gport" --no-commands -o "$out/rtt.twt" 2> "$out/rtt.log" ||
  { cat "$out/rtt.log" >&2; kill $qemu 2>/dev/null; echo "bench-rtt: the RTT run failed" >&2; exit 1; }
wait $qemu || { cat "$out/rtt-qemu.log" >&2; echo "bench-rtt: QEMU failed" >&2; exit 1; }
trap - EXIT

# "tracewire record: 200000 events (123456/s), drops: ..., 4800064 bytes"
rate() { # log -> "events bytes seconds"
  sed -n 's/^tracewire record: \([0-9]*\) events (\([0-9]*\)\/s).* \([0-9]*\) bytes$/\1 \2 \3/p' "$1" | tail -1
}
read -r ue ur ub < <(rate "$out/uart.log")
read -r re rr rb < <(rate "$out/rtt.log")
for v in "$ue" "$re"; do
  [ "${v:-0}" -ge "$events" ] || { cat "$out/uart.log" "$out/rtt.log" >&2; echo "bench-rtt: events missing" >&2; exit 1; }
done
# bytes/s = bytes * (events/s) / events (record's rate is over its own wall time)
bps() { awk -v b="$1" -v r="$2" -v e="$3" 'BEGIN { printf "%.0f", b * r / e }'; }
ubps=$(bps "$ub" "$ur" "$ue"); rbps=$(bps "$rb" "$rr" "$re")
cost=$(sed -n 's/^tracewire record: rtt+gdb[^:]*:[^:]*: \(.*\)$/\1/p; s/^tracewire record: rtt+gdb:\/\/[^ ]*: \(.*\)$/\1/p' "$out/rtt.log" | head -1)
echo "transport throughput from QEMU (mps2-an385, $events MutexEvents through the logger and streamer; wall time)"
printf '  %-52s %10s B/s  %8s events/s\n' "UART0 (-serial tcp) -> record --from tcp-listen://" "$ubps" "$ur"
printf '  %-52s %10s B/s  %8s events/s   (RTT/UART %s)\n' "RTT via gdbstub -> record --from rtt+gdb://" "$rbps" "$rr" \
  "$(awk -v a="$rbps" -v b="$ubps" 'BEGIN { printf "%.2f", a / b }')"
echo "  what the RTT reads cost the target (all-stop gdbstub: halt, read, continue): $cost"
