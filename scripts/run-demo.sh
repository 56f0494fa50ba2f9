#!/usr/bin/env bash
# `make run`: the demo, end to end over loopback TCP (README.md "make run").
# `make run-qemu` is the same with the firmware under QEMU as the target.
#
#   1. record   the RTOS workload model (scenario, fixed seed) streams UIA
#               packets to `tracewire record`, which writes the trace and
#               sends its commands (target info, START) back on the same
#               connection. TARGET=host: tw-demo-target, which holds its
#               model until the recorder's START is answered, so the trace
#               is a function of scenario and seed. TARGET=qemu: the same
#               model as Cortex-M3 firmware (mps2-an385) whose UART0 QEMU
#               connects to the recorder; it runs from reset, so the
#               recorder's commands arrive mid-stream (their records
#               differ, the events do not: tests/sh/qemu_run_matches_demo.sh)
#   2. export   CTF (babeltrace2, Trace Compass) and Perfetto
#   3. report   one self-contained HTML file
#   4. summary  `tracewire summary`: events, drops by cause, CPU load per
#               task, detector findings
# then the paths of what it wrote and how to open each.
#
# A step whose command is not in this build of `tracewire` is skipped and
# said so; every other failure fails the demo.
#
# RTOS=freertos runs the FreeRTOS application instead of the workload
# model (examples/freertos-posix, docs/porting-freertos.md): on the real
# kernel's POSIX port (TARGET=host, out/freertos/) or its Cortex-M3 port
# under QEMU (TARGET=qemu, firmware-freertos/, out/qemu-freertos/). It
# starts on the recorder's START, runs RUN_MS (1000) milliseconds, stops
# itself and prints its own count of each kind of event it caused
# (target.log; tests/sh/freertos_app.sh compares them with the trace).
#
# Usage: scripts/run-demo.sh <builddir>
#   SCENARIO=demo (or deadlock, pipeline, contention, inversion, storm)
#   SEED=1  TARGET=host|qemu  OUT=out/<scenario> (out/qemu-<scenario>)
#   RTOS=sim|freertos  RUN_MS=1000
#   TRANSPORT=uart|rtt (TARGET=qemu RTOS=sim): rtt streams over RTT through
#   QEMU's gdbstub to `tracewire record --from rtt+gdb://` instead of over
#   UART0 (out/qemu-rtt-<scenario>; the same decoded events:
#   tests/sh/qemu_rtt_matches_uart.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:?usage: scripts/run-demo.sh <builddir>}
scenario=${SCENARIO:-demo}; seed=${SEED:-1}; kind=${TARGET:-host}; rtos=${RTOS:-sim}
run_ms=${RUN_MS:-1000}; transport=${TRANSPORT:-uart}
case $transport in uart|rtt) ;; *) echo "run-demo: TRANSPORT=$transport: expected uart or rtt" >&2; exit 2 ;; esac
[ "$transport" = rtt ] && [ "$kind/$rtos" != qemu/sim ] &&
  { echo "run-demo: TRANSPORT=rtt needs TARGET=qemu RTOS=sim (make run-qemu TRANSPORT=rtt)" >&2; exit 2; }
tw=$b/tools/tracewire
case $b in /*) babs=$b ;; *) babs=$PWD/$b ;; esac
need_qemu() {
  command -v qemu-system-arm >/dev/null ||
    { echo "run-demo: qemu-system-arm not found (Debian: qemu-system-arm)" >&2; exit 1; }
  command -v arm-none-eabi-gcc >/dev/null ||
    { echo "run-demo: arm-none-eabi-gcc not found (Debian: gcc-arm-none-eabi)" >&2; exit 1; }
}
case $kind/$rtos in
  host/sim)
    out=${OUT:-out/$scenario}
    target=$b/examples/demo-target/tw-demo-target ;;
  qemu/sim)
    out=${OUT:-out/qemu-$([ "$transport" = rtt ] && echo rtt-)$scenario}
    target=$b/firmware/fw.elf
    need_qemu
    make -s -C firmware OUT="$babs/firmware" >/dev/null ;;
  host/freertos)
    out=${OUT:-out/freertos}
    target=$b/examples/freertos-posix/tw-freertos-app
    [ -e "$target" ] || { echo "run-demo: $target not built: configure with" \
      "-DFREERTOS_KERNEL_PATH=<FreeRTOS-Kernel> (beside this tree: ../shared/third_party/FreeRTOS-Kernel)" >&2; exit 1; } ;;
  qemu/freertos)
    out=${OUT:-out/qemu-freertos}
    target=$b/firmware-freertos/fw.elf
    need_qemu
    kernel=${FREERTOS_KERNEL_PATH:-$(sed -n 's/^FREERTOS_KERNEL_PATH:PATH=//p' "$b/CMakeCache.txt" 2>/dev/null)}
    [ -n "$kernel" ] || { echo "run-demo: no FreeRTOS kernel: set FREERTOS_KERNEL_PATH" \
      "(beside this tree: ../shared/third_party/FreeRTOS-Kernel)" >&2; exit 1; }
    make -s -C firmware-freertos OUT="$babs/firmware-freertos" FREERTOS_KERNEL_PATH="$kernel" >/dev/null ;;
  *) echo "run-demo: TARGET=$kind RTOS=$rtos: expected TARGET host or qemu, RTOS sim or freertos" >&2; exit 2 ;;
esac
for x in "$tw" "$target"; do
  [ -e "$x" ] || { echo "run-demo: $x not built (run: make build BUILD=$b)" >&2; exit 1; }
done
has() { "$tw" "$1" --help >/dev/null 2>&1; }
skipped=()
t0=$(date +%s%N)

rm -rf "$out"
mkdir -p "$out"
trace=$out/trace.twt
case $kind/$rtos in
  qemu/sim) echo "tracewire demo: scenario $scenario, seed $seed: the RTOS workload model (sim/) as Cortex-M3 firmware under QEMU" ;;
  host/sim) echo "tracewire demo: scenario $scenario, seed $seed: the RTOS workload model (sim/) over loopback TCP" ;;
  qemu/freertos) echo "tracewire demo: the FreeRTOS application (examples/freertos-posix/app.c) on FreeRTOS's Cortex-M3 port under QEMU, for $run_ms ms" ;;
  host/freertos) echo "tracewire demo: the FreeRTOS application (examples/freertos-posix) on FreeRTOS's POSIX port over loopback TCP, for $run_ms ms" ;;
esac

# ---- 1. record
# RTT: QEMU listens for a debugger (-gdb) and holds the CPU (-S) until the
# recorder attaches through it; semihosting stays QEMU's own
# (target=native), not routed to the debugger.
if [ "$transport" = rtt ]; then
  # a free port for the gdbstub, and wait until QEMU listens on it (from
  # /proc/net/tcp: connecting to find out would be a debugger attaching)
  gport=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  echo "[1/4] record   qemu-system-arm -M mps2-an385 $target, RTT -> gdbstub 127.0.0.1:$gport -> tracewire record --from rtt+gdb:// -> $trace"
  timeout 120 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial null \
    -semihosting-config enable=on,target=native -gdb "tcp:127.0.0.1:$gport" -S \
    -kernel "$target" -append "--scenario $scenario --seed $seed --transport rtt" \
    > "$out/target.log" 2>&1 &
  qemu=$!
  trap 'kill $qemu 2>/dev/null || true' EXIT
  hexport=$(printf '%04X' "$gport")
  for _ in $(seq 200); do
    grep -q ":$hexport [0-9A-F]*:[0-9A-F]* 0A" /proc/net/tcp 2>/dev/null && break
    sleep 0.05
  done
  "$tw" record --from "rtt+gdb://127.0.0.1:$gport" -o "$trace" -q 2> "$out/record.log" ||
    { cat "$out/record.log" >&2; kill $qemu 2>/dev/null; echo "run-demo: tracewire record failed" >&2; exit 1; }
  rc=0; wait $qemu || rc=$?
  trap - EXIT
  [ $rc -eq 0 ] || { cat "$out/target.log" >&2
    echo "run-demo: firmware exited with status $rc (124: timed out; docs/sim.md lists the others)" >&2; exit 1; }
  sed -n 's/^tracewire record: \(.*[0-9]* events\) ([^)]*)/               recorder: \1/p' "$out/record.log"
else
: > "$out/record.log" # there before the background recorder opens it
"$tw" record --from tcp-listen://127.0.0.1:0 -o "$trace" -q 2> "$out/record.log" &
rec=$!
trap 'kill $rec 2>/dev/null || true' EXIT
port=
for _ in $(seq 200); do  # the recorder prints the port it listens on
  port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$out/record.log" | head -1)
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { echo "run-demo: tracewire record did not start listening:" >&2; cat "$out/record.log" >&2; exit 1; }
if [ "$kind" = qemu ]; then
  echo "[1/4] record   qemu-system-arm -M mps2-an385 $target, UART0 -> tcp://127.0.0.1:$port -> tracewire record -> $trace"
  rc=0
  # the firmware ends the run itself (semihosting exit 0)
  args="--scenario $scenario --seed $seed"
  [ "$rtos" = freertos ] && args="--run-ms $run_ms"
  timeout 120 qemu-system-arm -M mps2-an385 -nographic -monitor none -semihosting \
    -kernel "$target" -serial "tcp:127.0.0.1:$port" -append "$args" \
    > "$out/target.log" 2>&1 || rc=$?
  [ $rc -eq 0 ] || { cat "$out/target.log" >&2
    echo "run-demo: firmware exited with status $rc (124: timed out; docs/sim.md lists the others)" >&2; exit 1; }
elif [ "$rtos" = freertos ]; then
  echo "[1/4] record   tw-freertos-app -> tcp://127.0.0.1:$port -> tracewire record -> $trace"
  timeout 120 "$target" --connect "tcp://127.0.0.1:$port" --run-ms "$run_ms" 2> "$out/target.log" ||
    { cat "$out/target.log" >&2; echo "run-demo: tw-freertos-app failed" >&2; exit 1; }
else
  echo "[1/4] record   tw-demo-target -> tcp://127.0.0.1:$port -> tracewire record -> $trace"
  "$target" --scenario "$scenario" --seed "$seed" --connect "tcp://127.0.0.1:$port" --wait-start \
    2> "$out/target.log" || { cat "$out/target.log" >&2; echo "run-demo: tw-demo-target failed" >&2; exit 1; }
fi
wait $rec || { cat "$out/record.log" >&2; echo "run-demo: tracewire record failed" >&2; exit 1; }
trap - EXIT
# the target's own account (what the model emitted, what the ring dropped)
# and the recorder's (what arrived)
sed -n 's/^tw-demo-target: scenario [^:]*: /               target:   /p; s/^tw-freertos-app: \(.* packets.*\)/               target:   \1/p' "$out/target.log"
sed -n 's/^tracewire record: \(.*[0-9]* events\) ([^)]*)/               recorder: \1/p' "$out/record.log"
fi

# ---- 2. export
if has export; then
  "$tw" export "$trace" --format ctf -o "$out/ctf" -q
  "$tw" export "$trace" --format perfetto -o "$out/trace.perfetto-trace" -q
  echo "[2/4] export   CTF $out/ctf/, Perfetto $out/trace.perfetto-trace"
else
  echo "[2/4] export   SKIPPED: this tracewire has no 'export' command yet"
  skipped+=(export)
fi

# ---- 3. report
if has report; then
  "$tw" report "$trace" -o "$out/report.html" -q 2> "$out/report.log" ||
    { cat "$out/report.log" >&2; echo "run-demo: tracewire report failed" >&2; exit 1; }
  echo "[3/4] report   $out/report.html"
else
  echo "[3/4] report   SKIPPED: this tracewire has no 'report' command yet"
  skipped+=(report)
fi

# ---- 4. summary
if has summary; then
  echo "[4/4] summary"
  "$tw" summary -q "$trace" > "$out/summary.txt"
else
  echo "[4/4] summary  SKIPPED: this tracewire has no 'summary' command; its stats instead:"
  "$tw" stats -q "$trace" > "$out/summary.txt"
  skipped+=(summary)
fi
sed 's/^/  /' "$out/summary.txt"

# ---- where things are
echo
echo "open them:"
if [ -d "$out/ctf" ]; then
  echo "  CTF          babeltrace2 $out/ctf | less   (Debian: babeltrace2)"
  echo "               Trace Compass: File > Open Trace... > $out/ctf/metadata"
fi
[ -f "$out/trace.perfetto-trace" ] &&
  echo "  Perfetto     https://ui.perfetto.dev > Open trace file > $out/trace.perfetto-trace"
[ -f "$out/report.html" ] &&
  echo "  report       xdg-open $out/report.html   (any browser; one file, works offline)"
echo "  events       $tw print $trace | less"
echo "  analyses     $tw analyze $trace"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ ${#skipped[@]} -gt 0 ]; then
  echo "run-demo: done in $((ms / 1000)).$(printf %03d $((ms % 1000))) s; skipped: ${skipped[*]}"
else
  echo "run-demo: done in $((ms / 1000)).$(printf %03d $((ms % 1000))) s"
fi
