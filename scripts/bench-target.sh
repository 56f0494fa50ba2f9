#!/usr/bin/env bash
# `make bench-target`: what tracing costs a Cortex-M, measured under QEMU
# (docs/performance.md explains the method and the numbers):
#   1. instructions per recorded event (bench/target/bench_target.c) on a
#      Cortex-M3, mps2-an385, QEMU -icount shift=0, for the lock-free put
#      (the ARMv7-M default), the interrupt-lock put
#      (TW_CFG_LOGGER_CRITICAL=1, the ARMv6-M default), the streamed
#      minimal configuration's put (lock-free, TW_CFG_LOGGER_WAKE=0) and
#      direct recording, printed beside the anchors' published cycle
#      counts; fails above the target (a 2-word event with timestamp in at
#      most 60 instructions, lock included) with any of the ring's puts;
#   2. the RTT and UART paths' throughput (scripts/bench-rtt.sh), unless
#      BENCH_TARGET_CYCLES_ONLY=1.
# Usage: scripts/bench-target.sh [builddir]   (build, for the tracewire CLI)
# --markdown prints the instruction table as the Markdown docs carry it.
set -euo pipefail
cd "$(dirname "$0")/.."
b=build; md=0
for a in "$@"; do
  case $a in --markdown) md=1 ;; *) b=$a ;; esac
done
for t in arm-none-eabi-gcc qemu-system-arm; do
  command -v $t >/dev/null || { echo "bench-target: $t not found (Debian: gcc-arm-none-eabi, qemu-system-arm)" >&2; exit 1; }
done
out=build-arm-bench; mkdir -p "$out"
flags=(-std=c11 -mcpu=cortex-m3 -mthumb -Os -g -ffreestanding -ffunction-sections -fdata-sections
       -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
       -Wno-missing-field-initializers -Iinclude -Isrc -Ifirmware -DTW_CFG_KLOG_CAPACITY=2048
       -nostartfiles --specs=nano.specs --specs=nosys.specs -Wl,--gc-sections -T firmware/mps2-an385.ld)
srcs=(bench/target/bench_target.c firmware/startup.c firmware/semihost.c firmware/systick.c
      src/common/*.c src/target/*.c src/port/cortex-m/*.c)

declare -A val
for v in lockfree lock streamed direct; do
  extra=()
  [ $v = lock ] && extra=(-DTW_CFG_LOGGER_CRITICAL=1)
  [ $v = streamed ] && extra=(-DTW_CFG_STREAMER_MINIMAL=1 -DTW_CFG_LOGGER_WAKE=0 -DTW_CFG_CUSTOM_DECLS=0
                              -DTW_CFG_MIN_EVENT_PKT=1)
  [ $v = direct ] && extra=(-DTW_CFG_DIRECT=1 -DTW_CFG_CUSTOM_DECLS=0 -DTW_CFG_MIN_EVENT_PKT=1)
  arm-none-eabi-gcc "${flags[@]}" ${extra[@]+"${extra[@]}"} "${srcs[@]}" -o "$out/bench-$v.elf"
  log=$out/bench-$v.log rc=0
  timeout 120 qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none -semihosting \
    -icount shift=0,align=off,sleep=off -kernel "$out/bench-$v.elf" > "$log" 2>&1 || rc=$?
  if [ $rc -ne 0 ] || ! grep -q '^tw-bench ok' "$log"; then
    cat "$log" >&2; echo "bench-target: the $v bench failed (status $rc)" >&2; exit 1
  fi
  while read -r _ k x; do val[$v.$k]=$x; done < <(grep '^tw-bench [a-z_0-9]* [0-9]*$' "$log")
done
fmt() { [ -n "${1:-}" ] || { echo -; return; }; printf '%d.%02d' $(( $1 / 100 )) $(( $1 % 100 )); }
# rounded to whole instructions for the table (measured to +-0.05)
whole() { [ -n "${1:-}" ] || { echo -; return; }; echo $(( ($1 + 50) / 100 )); }

rows=("event2|2-word event, timestamp, mask test|Event Recorder: 184-197 cycles (Cortex-M3); SystemView: < 200 cycles (< 1 us at 200 MHz, Cortex-M4)"
      "task_switch|task switch|"
      "isr_pair|interrupt enter + leave|"
      "custom4|custom event, 4 fields|"
      "drop|drop (ring full)|"
      "masked|event masked off (not recording)|")
if [ $md = 1 ]; then
  echo "| event (Cortex-M3, -Os) | lock-free (ARMv7-M default) | interrupt lock (\`TW_CFG_LOGGER_CRITICAL=1\`) | streamed minimal (lock-free, \`TW_CFG_LOGGER_WAKE=0\`) | direct recording (minimal configuration) | anchors, published |"
  echo "|---|---:|---:|---:|---:|---|"
  for r in "${rows[@]}"; do
    IFS='|' read -r k name anchor <<< "$r"
    echo "| $name | $(whole "${val[lockfree.$k]}") | $(whole "${val[lock.$k]}") | $(whole "${val[streamed.$k]:-}") | $(whole "${val[direct.$k]:-}") | ${anchor:-} |"
  done
else
  echo "instructions per event on a Cortex-M3 (QEMU mps2-an385, -icount shift=0; a lower bound for cycles)"
  echo "  method self-check: $(fmt $(( ${val[lockfree.insn_per_tick_x1000]} / 10 ))) instructions per SysTick tick (expected 40.00), 16 NOPs measure $(fmt "${val[lockfree.calib_nop16]}")"
  printf '  %-36s %10s %15s %9s %8s   %s\n' "" "lock-free" "interrupt lock" "streamed" "direct" "anchors (published cycles)"
  for r in "${rows[@]}"; do
    IFS='|' read -r k name anchor <<< "$r"
    printf '  %-36s %10s %15s %9s %8s   %s\n' "$name" "$(fmt "${val[lockfree.$k]}")" "$(fmt "${val[lock.$k]}")" \
      "$(fmt "${val[streamed.$k]:-}")" "$(fmt "${val[direct.$k]:-}")" "${anchor:-}"
  done
fi
limit=6000 status=0
for v in lockfree lock streamed; do
  if [ "${val[$v.event2]}" -gt $limit ]; then
    echo "bench-target: FAIL: the 2-word event takes $(fmt "${val[$v.event2]}") instructions ($v), target <= 60" >&2
    status=1
  fi
done
[ $md = 1 ] || [ $status -ne 0 ] || echo "bench-target: OK (2-word event <= 60 instructions with each of the ring's puts)"
[ $status -eq 0 ] || exit $status
if [ $md = 0 ] && [ "${BENCH_TARGET_CYCLES_ONLY:-0}" != 1 ] && [ -x scripts/bench-rtt.sh ]; then
  echo
  bash scripts/bench-rtt.sh "$b"
fi
