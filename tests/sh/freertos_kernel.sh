#!/usr/bin/env bash
# The FreeRTOS tests (tests/freertos/, the example, the SMP and C++
# builds) need the real kernel: configure with
# -DFREERTOS_KERNEL_PATH=<FreeRTOS-Kernel> (`make` passes
# ../shared/third_party/FreeRTOS-Kernel when it exists). Without it they
# are not built: this test says so loudly, and in CI that is a failure.
# Args: build dir, source dir.
set -euo pipefail
B=$1
if [ -x "$B/tests/freertos_kernel_hooks" ]; then
  echo "freertos_kernel.sh: the FreeRTOS tests are built (FREERTOS_KERNEL_PATH is set)"
  exit 0
fi
echo "freertos_kernel.sh: SKIPPED: no FreeRTOS kernel: the FreeRTOS hook tests, example and" >&2
echo "  benchmark were not built. Configure with -DFREERTOS_KERNEL_PATH=<FreeRTOS-Kernel checkout>" >&2
echo "  (beside this tree: ../shared/third_party/FreeRTOS-Kernel)." >&2
[ "${CI:-}" = true ] && exit 1
exit 77
