#!/usr/bin/env bash
# The instrumentation API, streamer and command service are target code:
# each public header compiles on its own (twice: include guard), and the
# sources compile freestanding for a little- and a big-endian Cortex-M,
# also with the MinEventPkt option, as the streamed minimal configuration,
# and with tracing configured out.
set -euo pipefail
b=$1 src=$2
CC=${CROSS_CC:-arm-none-eabi-gcc}
if ! command -v "$CC" >/dev/null; then
  echo "streamer_freestanding: $CC not found (Debian: gcc-arm-none-eabi)" >&2
  [ "${CI:-}" = true ] && exit 1 || exit 77
fi
out="$b/streamer-freestanding"
mkdir -p "$out"
flags=(-std=c11 -mcpu=cortex-m3 -mthumb -ffreestanding -Os -Wall -Wextra -Werror -Wshadow
       -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers
       -I"$src/include" -I"$src/src")
for endian in -mlittle-endian -mbig-endian; do
  for h in tracewire/events_gen.h tracewire/vocab.h tracewire/trace.h tracewire/streamer.h \
           tracewire/cmd.h; do
    printf '#include "%s"\n#include "%s"\n' "$h" "$h" > "$out/h.c"
    "$CC" "${flags[@]}" "$endian" -c "$out/h.c" -o "$out/h.o"
  done
  for f in streamer cmd_service trace trace_klog source_klog; do
    "$CC" "${flags[@]}" "$endian" -c "$src/src/target/$f.c" -o "$out/$f$endian.o"
  done
  "$CC" "${flags[@]}" "$endian" -c "$src/src/common/events_desc.c" -o "$out/ed$endian.o"
  "$CC" "${flags[@]}" "$endian" -DTW_CFG_MIN_EVENT_PKT=1 -c "$src/src/target/streamer.c" -o "$out/smin.o"
  # the streamed minimal configuration (docs/performance.md): every target source
  for f in "$src"/src/target/*.c; do
    "$CC" "${flags[@]}" "$endian" -DTW_CFG_STREAMER_MINIMAL=1 -DTW_CFG_LOGGER_WAKE=0 \
      -DTW_CFG_CUSTOM_DECLS=0 -DTW_CFG_MIN_EVENT_PKT=1 -c "$f" -o "$out/streamed.o"
  done
  printf '#include "tracewire/trace.h"\nvoid f(void);\nvoid f(void) { tw_mutex(1, 2, 3); tw_sleep(4, 5); }\n' > "$out/off.c"
  "$CC" "${flags[@]}" "$endian" -DTW_CFG_TRACE=0 -c "$out/off.c" -o "$out/off.o"
  # configured out, the emitters leave no call behind
  if arm-none-eabi-nm "$out/off.o" | grep -q "tw__trace_put\|tw_trace_now"; then
    echo "streamer_freestanding: TW_CFG_TRACE=0 still calls the logger" >&2
    exit 1
  fi
done
echo "instrumentation API, streamer and command service compile freestanding (LE and BE Cortex-M)"
