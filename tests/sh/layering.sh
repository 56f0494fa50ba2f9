#!/usr/bin/env bash
# The layering check (scripts/layering.sh, docs/architecture.md): the tree
# passes it, and it fails, naming file, line and both layers, on a copy of
# the tree with one wrong include planted (upward from a source, upward
# from a public header, between the peers export and analysis, from the
# target side) or with a folder that is no layer.
set -euo pipefail
src=$2
check=$src/scripts/layering.sh
fail() { echo "FAIL: $*" >&2; exit 1; }
bash "$check" "$src" || fail "the tree breaks its own layering (above)"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# plant FILE LINE-TEXT WANT...: the check must fail and print every WANT
plant() {
  local file=$1 text=$2; shift 2
  rm -rf "$tmp/t" && mkdir "$tmp/t" && cp -r "$src/src" "$src/include" "$tmp/t/"
  if [ "$file" = -d ]; then mkdir -p "$tmp/t/$text"; : > "$tmp/t/$text/x.c"
  else sed -i "1i $text" "$tmp/t/$file"; fi
  if out=$(bash "$check" "$tmp/t" 2>&1); then fail "not caught: $text in $file"; fi
  for w in "$@"; do
    grep -qF -- "$w" <<<"$out" || fail "$text in $file: output lacks '$w': $out"
  done
}
plant src/io/sys.c '#include "tracewire/model/mti_host.h"' \
  "src/io/sys.c:1: layer io includes tracewire/model/mti_host.h from layer model, which is above it"
plant include/tracewire/wire/reader.h '#include "tracewire/twt/trace_file.h"' \
  "include/tracewire/wire/reader.h:1: layer wire includes tracewire/twt/trace_file.h from layer twt"
plant src/wire/merge.c '#include "model/mti_internal.h"' \
  "src/wire/merge.c:1: layer wire includes model/mti_internal.h from layer model"
plant src/export/csv.c '#include "tracewire/analysis/analysis.h"' \
  "src/export/csv.c:1: layer export includes tracewire/analysis/analysis.h from layer analysis: the two are peers"
plant src/target/trace.c '#include <tracewire/io/sys.h>' \
  "src/target/trace.c:1: layer base includes tracewire/io/sys.h from layer io"
plant include/tracewire/uia.h '#include "tracewire/mti_plugin.h"' \
  "include/tracewire/uia.h:1: layer base includes tracewire/mti_plugin.h from layer model"
plant -d src/host "src/host: not a known layer folder"
# a downward include is fine
rm -rf "$tmp/t" && mkdir "$tmp/t" && cp -r "$src/src" "$src/include" "$tmp/t/"
sed -i '1i #include "tracewire/io/sys.h"' "$tmp/t/src/trace/input.c"
bash "$check" "$tmp/t" >/dev/null || fail "a downward include was refused"
echo "layering: the tree passes; 7 planted violations caught"
