#!/usr/bin/env bash
# The plugin examples of docs/mti.md compile as written, load, and count the
# task switches `tracewire print` shows.
set -euo pipefail
B=$1
S=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cc=${CC:-cc}
flags=$(sed -n 's/^C_FLAGS = //p' "$B/src/CMakeFiles/tw_model.dir/flags.make" 2>/dev/null || true)
lib=$B/src/libtw_model.a
[ -f "$lib" ] || fail "no $lib"
awk -v dir="$tmp" '/^```c$/ {n++; f=dir "/ex" n ".c"; on=1; next} /^```$/ {on=0} on {print > f}' \
  "$S/docs/mti.md"
ls "$tmp"/ex*.c >/dev/null 2>&1 || fail "no C examples in docs/mti.md"
"$B/tools/tracewire" synth -o "$tmp/t.bin" --packets 30 2>/dev/null
want=$("$B/tools/tracewire" print "$tmp/t.bin" --filter event=TASK_SWITCH | wc -l)
[ "$want" -gt 0 ] || fail "no task switches in the synthetic trace"
for src in "$tmp"/ex*.c; do
  so=${src%.c}.so
  # shellcheck disable=SC2086
  $cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $flags -fPIC -shared -fvisibility=hidden \
      -I"$S/include" "$src" -o "$so" "$lib" -Wl,--exclude-libs,ALL || fail "$src does not build"
  out=$("$B/tools/tracewire" run "$tmp/t.bin" --plugin "$so")
  got=$(echo "$out" | grep -oE '[0-9]+' | head -1 || true)
  [ "$got" -eq "$want" ] || fail "$(basename "$src"): counted $got switches, print shows $want: $out"
done
echo "mti_doc_examples: ok ($(ls "$tmp"/ex*.c | wc -l) examples)"
