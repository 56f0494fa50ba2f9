#!/usr/bin/env bash
# The wire-format headers and uia.c are target code: each public header
# compiles on its own, freestanding, for a little- and a big-endian
# Cortex-M (the big-endian build takes the TW_HOST_BIG_ENDIAN path that
# this x86 host never runs).
set -euo pipefail
b=$1 src=$2
CC=${CROSS_CC:-arm-none-eabi-gcc}
if ! command -v "$CC" >/dev/null; then
  echo "headers_freestanding: $CC not found (Debian: gcc-arm-none-eabi)" >&2
  [ "${CI:-}" = true ] && exit 1 || exit 77
fi
out="$b/headers-freestanding"
mkdir -p "$out"
flags=(-std=c11 -mcpu=cortex-m3 -mthumb -ffreestanding -Os -Wall -Wextra -Werror -Wshadow
       -Wstrict-prototypes -Wmissing-prototypes -I"$src/include")
for endian in -mlittle-endian -mbig-endian; do
  for h in tracewire/error.h tracewire/uia.h tracewire/compat/uia.h; do
    printf '#include "%s"\n#include "%s"\n' "$h" "$h" > "$out/h.c" # twice: include guard
    "$CC" "${flags[@]}" "$endian" -c "$out/h.c" -o "$out/h.o"
  done
  "$CC" "${flags[@]}" "$endian" -c "$src/src/common/uia.c" -o "$out/uia$endian.o"
  want=$([ "$endian" = -mbig-endian ] && echo 1 || echo 0)
  got=$(printf '#include "tracewire/uia.h"\nTW_HOST_BIG_ENDIAN\n' |
        "$CC" "${flags[@]}" "$endian" -E -P - | tail -1)
  [ "$got" = "$want" ] || { echo "TW_HOST_BIG_ENDIAN is $got with $endian" >&2; exit 1; }
done
echo "headers and uia.c compile freestanding for little- and big-endian Cortex-M"
