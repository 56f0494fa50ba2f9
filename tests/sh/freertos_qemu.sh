#!/usr/bin/env bash
# `make run-qemu RTOS=freertos`: the FreeRTOS application on FreeRTOS's
# Cortex-M3 port under QEMU mps2-an385, streaming over its UART, with the
# checks of tests/sh/freertos_app.sh (counts exact, drops announced; the
# findings once the RTOS state model gives the FreeRTOS events a meaning).
# Needs the kernel (FREERTOS_KERNEL_PATH), qemu-system-arm and
# gcc-arm-none-eabi: skipped loudly without them, a failure in CI.
# Args: build dir, source dir.
set -euo pipefail
B=$1
S=$2
skip() {
  echo "freertos_qemu.sh: SKIPPED: $*" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77
}
[ -x "$B/examples/freertos-posix/tw-freertos-app" ] ||
  skip "no FreeRTOS kernel (configure with -DFREERTOS_KERNEL_PATH=...)"
command -v qemu-system-arm >/dev/null || skip "qemu-system-arm not found (Debian: qemu-system-arm)"
command -v arm-none-eabi-gcc >/dev/null || skip "arm-none-eabi-gcc not found (Debian: gcc-arm-none-eabi)"
TARGET=qemu exec bash "$S/tests/sh/freertos_app.sh" "$B" "$S"
