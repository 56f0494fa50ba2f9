#!/usr/bin/env bash
# Build the logger with the Cortex-M port for a Cortex-M3 and run its smoke
# test (tests/cortex-m/klog_smoke.c) under QEMU (mps2-an385), with the
# SysTick handler producing events as a real interrupt.
# Args: build dir, source dir. Needs gcc-arm-none-eabi, libnewlib-arm-none-eabi,
# qemu-system-arm (scripts/deps.sh); skips (77) without them unless CI=true.
set -euo pipefail
b=$1; src=$2
for t in arm-none-eabi-gcc qemu-system-arm; do
  if ! command -v $t >/dev/null; then
    echo "cortexm_qemu: SKIP: $t missing (Debian: gcc-arm-none-eabi, qemu-system-arm)" >&2
    [ "${CI:-}" = true ] && exit 1
    exit 77
  fi
done
out=$b/cortexm-smoke; mkdir -p "$out"
# cortex-m3: LDREX/STREX reservation. cortex-m0: the critical-section
# (PRIMASK) variant, chosen automatically for ARMv6-M, run on the same M3
# core (ARMv6-M code is a subset).
for cpu in cortex-m3 cortex-m0; do
  elf=$out/klog_smoke-$cpu.elf log=$out/qemu-$cpu.log rc=0
  arm-none-eabi-gcc -std=c11 -mcpu=$cpu -mthumb -Os -g -ffreestanding \
    -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
    -I"$src/include" -I"$src/src" -nostartfiles --specs=nano.specs --specs=nosys.specs \
    -T "$src/tests/cortex-m/mps2.ld" -o "$elf" \
    "$src/tests/cortex-m/klog_smoke.c" "$src/src/target/event_logger.c" \
    "$src/src/target/kernel_event_logger.c" "$src/src/target/waiter.c" "$src"/src/port/cortex-m/*.c
  echo "== $cpu"
  timeout "${QEMU_TIMEOUT:-60}" qemu-system-arm -machine mps2-an385 -nographic \
    -monitor none -serial none -semihosting-config enable=on,target=native \
    -kernel "$elf" >"$log" 2>&1 || rc=$?
  cat "$log"
  [ $rc -eq 0 ] || { echo "cortexm_qemu: $cpu: qemu exited with $rc" >&2; exit 1; }
  grep -q "klog_smoke: PASS" "$log" || exit 1
done
