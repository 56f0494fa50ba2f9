#!/usr/bin/env bash
# Size budget of the logger on Cortex-M4 (-Os -mthumb), run by
# `scripts/cross.sh size` (make size) with the object directory as $1.
# The logger core (ring: put, get, get_wait, stats) must stay within
# 1 KiB of text (SEGGER SystemView's core is about 920 B); the kernel
# policy, seed compat layer and port are printed alongside.
set -euo pipefail
dir=${1:-build-arm-m4}
budget=1024
text() { arm-none-eabi-size "$dir/$1.o" | awk 'NR==2 {print $1}'; }
core=$(text event_logger)
klog=$(text kernel_event_logger)
compat=$(text event_logger_compat)
port=$(text port_cortex_m)
echo "logger sizes (text bytes, cortex-m4 -Os):"
printf '  %-42s %5d  (budget %d)\n' "core   src/target/event_logger.c" "$core" "$budget"
printf '  %-42s %5d\n' "kernel src/target/kernel_event_logger.c" "$klog"
printf '  %-42s %5d\n' "seed   src/target/event_logger_compat.c" "$compat"
printf '  %-42s %5d\n' "port   src/port/cortex-m" "$port"
printf '  %-42s %5d\n' "total" $((core + klog + compat + port))
if [ "$core" -gt "$budget" ]; then
  echo "size-check: FAIL: logger core is $core B of text, budget $budget B" >&2
  exit 1
fi
echo "size-check: OK (logger core $core B <= $budget B)"
