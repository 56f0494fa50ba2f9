#!/usr/bin/env bash
# A bounded libFuzzer run of fuzz/fuzz_uia.c (ASan+UBSan) from the
# checked-in corpus: a smoke test that the decoders survive mutated
# streams. Longer runs by hand: TW_FUZZ_SECONDS=600 bash tests/sh/fuzz_uia.sh build .
set -euo pipefail
b=$1 src=$2
if ! command -v clang >/dev/null; then
  echo "fuzz_uia: clang not found (Debian: clang, libclang-rt-14-dev)" >&2
  [ "${CI:-}" = true ] && exit 1 || exit 77
fi
out="$b/fuzz"
mkdir -p "$out/corpus"
clang -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
  -I"$src/include" "$src/fuzz/fuzz_uia.c" "$src/src/common/uia.c" "$src/src/common/error.c" \
  -o "$out/fuzz_uia"
# new inputs go to the scratch corpus dir, never into the source tree
if ! "$out/fuzz_uia" -max_total_time="${TW_FUZZ_SECONDS:-10}" -seed=1 -artifact_prefix="$out/" \
     "$out/corpus" "$src/fuzz/corpus/uia" > "$out/fuzz.log" 2>&1; then
  cat "$out/fuzz.log"
  echo "fuzz_uia: crash input saved under $out/" >&2
  exit 1
fi
tail -2 "$out/fuzz.log"
