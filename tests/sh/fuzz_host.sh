#!/usr/bin/env bash
# A bounded libFuzzer run of fuzz/fuzz_host_decode.c (reader + decoder +
# text format, ASan+UBSan) from the checked-in corpus. Longer runs by hand:
# TW_FUZZ_SECONDS=600 bash tests/sh/fuzz_host.sh build .
set -euo pipefail
b=$1 src=$2
if ! command -v clang >/dev/null; then
  echo "fuzz_host: clang not found (Debian: clang, libclang-rt-14-dev)" >&2
  [ "${CI:-}" = true ] && exit 1 || exit 77
fi
out="$b/fuzz_host"
mkdir -p "$out/corpus"
srcs=()
for f in wire/reader wire/decoder wire/format io/conn io/conn_mem io/sys; do srcs+=("$src/src/$f.c"); done
clang -std=c11 -g -O1 -D_GNU_SOURCE -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I"$src/include" "$src/fuzz/fuzz_host_decode.c" "${srcs[@]}" "$src"/src/common/*.c \
  -o "$out/fuzz_host"
# new inputs go to the scratch corpus dir, never into the source tree
if ! "$out/fuzz_host" -max_total_time="${TW_FUZZ_SECONDS:-10}" -seed=1 -max_len=8192 \
     -artifact_prefix="$out/" "$out/corpus" "$src/fuzz/corpus/host_decode" > "$out/fuzz.log" 2>&1; then
  cat "$out/fuzz.log"
  echo "fuzz_host: crash input saved under $out/" >&2
  exit 1
fi
tail -2 "$out/fuzz.log"
