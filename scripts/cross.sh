#!/usr/bin/env bash
# Build the freestanding target code for Cortex-M with no build system, the
# way a firmware project would drop it in: every .c of src/common,
# src/target and src/port/cortex-m, include/ on the include path.
#   scripts/cross.sh build   cortex-m3, -Os, objects + libtracewire.a in build-arm/
#   scripts/cross.sh size    cortex-m4 text/data/bss per module (arm-none-eabi-size), the
#                            logger core's budget, then the minimal, streamed and full
#                            configurations as linked, with the minimal one's budgets
#                            (scripts/size_configs.py)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:-build}
CC=${CROSS_CC:-arm-none-eabi-gcc}
command -v "$CC" >/dev/null || { echo "cross.sh: $CC not found (Debian: gcc-arm-none-eabi)" >&2; exit 1; }

cpu=cortex-m3; out=build-arm
[ "$mode" = size ] && { cpu=cortex-m4; out=build-arm-m4; }
flags=(-std=c11 -mcpu=$cpu -mthumb -ffreestanding -Os -ffunction-sections
       -fdata-sections -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes
       -Wmissing-prototypes -Wno-missing-field-initializers -Iinclude -Isrc)
mkdir -p "$out"
objs=()
for f in src/common/*.c src/target/*.c src/port/cortex-m/*.c; do
  [ -e "$f" ] || continue
  o="$out/$(basename "${f%.c}").o"
  "$CC" "${flags[@]}" -c "$f" -o "$o"
  objs+=("$o")
done
[ ${#objs[@]} -gt 0 ] || { echo "cross.sh: no target sources" >&2; exit 1; }
arm-none-eabi-ar rcs "$out/libtracewire.a" "${objs[@]}"
if [ "$mode" = size ]; then
  echo "Cortex-M4 (-Os -mthumb) size of the target modules:"
  arm-none-eabi-size -t "${objs[@]}"
  if [ -x scripts/size-check.sh ]; then bash scripts/size-check.sh "$out"; fi
  echo
  command -v python3 >/dev/null || { echo "cross.sh: python3 not found (Debian: python3)" >&2; exit 1; }
  python3 scripts/size_configs.py
else
  echo "cross build OK: $out/libtracewire.a (${#objs[@]} objects, -mcpu=$cpu)"
fi
