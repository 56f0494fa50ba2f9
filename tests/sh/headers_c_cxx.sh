#!/usr/bin/env bash
# Every public header compiles on its own, twice (include guard), as C99,
# C11 and C++11, each with -pedantic -Wall -Wextra -Werror; and a C++
# program calling the target API links against the C library (extern "C").
# tracewire/freertos.h needs FreeRTOS.h first: the FreeRTOS C++ test
# (tests/freertos/cxx_app.cpp) covers it. Host headers need POSIX
# (struct timespec): the headers of the host layers (io/, wire/, twt/,
# model/, ...) are compiled with _POSIX_C_SOURCE.
# Args: build dir, source dir.
set -euo pipefail
b=$1 src=$2
for c in gcc g++; do
  command -v $c >/dev/null || { echo "headers_c_cxx: $c not found (Debian: ${c/gcc/gcc})" >&2
    [ "${CI:-}" = true ] && exit 1 || exit 77; }
done
out="$b/headers-c-cxx"
mkdir -p "$out"
n=0
for h in $(cd "$src/include" && ls tracewire/*.h tracewire/*/*.h); do
  [ "$h" = tracewire/freertos.h ] && continue
  defs=()
  case $h in tracewire/compat/*|tracewire/hooks/*) ;; tracewire/*/*) defs=(-D_POSIX_C_SOURCE=200809L) ;; esac
  printf '#include "%s"\n#include "%s"\nint tw__hc;\n' "$h" "$h" > "$out/h.c"
  for mode in "gcc -std=c99" "gcc -std=c11" "g++ -std=c++11 -x c++"; do
    # shellcheck disable=SC2086
    $mode -pedantic -Wall -Wextra -Werror ${defs[@]+"${defs[@]}"} -I"$src/include" \
      -c "$out/h.c" -o "$out/h.o" || { echo "headers_c_cxx: $h does not compile as [$mode]" >&2; exit 1; }
  done
  n=$((n + 1))
done

# C linkage: C++ calls into the C target library.
cat > "$out/link.cpp" <<'CPP'
#include "tracewire/cmd.h"
#include "tracewire/klog.h"
#include "tracewire/logger.h"
#include "tracewire/port.h"
#include "tracewire/streamer.h"
#include "tracewire/trace.h"
#include "tracewire/compat/event_logger.h"
#include "tracewire/compat/uia.h"
#include "tracewire/wire/decoder.h"
#include <cstdio>
#include <cstring>

TW_LOGGER_DEFINE(cxx_log, 64);
static int sink(void *, const void *, size_t) { return 0; }

int main()
{
  struct tw_streamer s;
  struct tw_streamer_cfg cfg;
  std::memset(&cfg, 0, sizeof cfg);
  tw_source_klog(&cfg.source);
  cfg.send = sink;
  uint32_t w = 1;
  int ok = tw_streamer_init(&s, &cfg) == 0 && tw_logger_put(&cxx_log, 5, &w, 1) == 0 &&
           tw_name_register(TW_OBJ_TASK, 1, "cxx", 1) == 0 &&
           tw_event_desc_by_id(TW_EV_MUTEX) != NULL;
  (void)tw_port_timestamp_hz();
  tw_mutex(1, 2, TW_MUTEX_Lock);
  struct tw_decoder *d = NULL; /* and the host side */
  ok = ok && tw_decoder_open(&d, NULL) == 0;
  if (d)
    tw_decoder_close(d);
  std::printf("%s\n", tw_strerror(ok ? 0 : TW_EINVAL));
  return ok ? 0 : 1;
}
CPP
# a sanitized build's libraries need the sanitizers' runtimes
san=$(sed -n 's/^TW_SANITIZE:STRING=//p' "$b/CMakeCache.txt" 2>/dev/null || true)
sanflags=()
[ -n "$san" ] && sanflags=(-fsanitize="$san")
g++ -std=c++11 -pedantic -Wall -Wextra -Werror ${sanflags[@]+"${sanflags[@]}"} -I"$src/include" "$out/link.cpp" \
  "$b/src/libtw_wire.a" "$b/src/libtw_io.a" "$b/src/libtw_target.a" -lpthread -o "$out/link"
"$out/link" > /dev/null
echo "headers_c_cxx: $n public headers compile as C99, C11 and C++11; C++ links the target and wire libraries"
