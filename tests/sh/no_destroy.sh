#!/usr/bin/env bash
# Issue 19, item 6: no command destroys its input. Every command that
# writes refuses an output that is the same file as an input (device and
# inode: the same path, a hard link, a symbolic link, standard output
# redirected onto it), and leaves the input byte for byte; `index` in place
# replaces a file only with a verified copy, and never a damaged one.
# Args: build dir, source dir.
set -uo pipefail
build=$(cd "$1" && pwd)
src=$2
tw=$build/tools/tracewire
plugins=$build/examples/plugins
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "no_destroy: FAIL: $*" >&2; exit 1; }

# A recording (record from a file of synthetic packets).
"$tw" synth -o "$tmp/raw.bin" --packets 300 --control --switches 2>/dev/null ||
  fail "synth"
"$tw" record --from "$tmp/raw.bin" -o "$tmp/t.twt" -q 2>/dev/null || fail "record from a file"
sum() { md5sum "$1" | cut -d' ' -f1; }

# refused PATTERN FILE CMD...: CMD exits 1 (2 with want=2) naming the
# clash, FILE keeps its bytes.
want=1
refused() {
  local pat=$1 file=$2 before rc
  shift 2
  before=$(sum "$file")
  timeout 20 "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
  rc=$?
  [ "$rc" -ne 124 ] || fail "still running after 20 s: $*"
  [ "$rc" -eq "$want" ] || fail "exit $rc, want $want: $*"
  grep -q -- "$pat" "$tmp/err" || fail "no message matching '$pat': $*: $(cat "$tmp/err")"
  [ "$(sum "$file")" = "$before" ] || fail "$file changed: $*"
}
same='is a file this command reads'

cp "$tmp/t.twt" "$tmp/a.twt"
ln "$tmp/a.twt" "$tmp/hard.twt"
ln -s a.twt "$tmp/soft.twt"
ln -s "$tmp/raw.bin" "$tmp/raw-link.bin"
for out in a.twt hard.twt soft.twt; do
  refused "$same" "$tmp/a.twt" "$tw" index "$tmp/a.twt" -o "$tmp/$out"
  refused "$same" "$tmp/a.twt" "$tw" report "$tmp/a.twt" -o "$tmp/$out"
  refused "$same" "$tmp/a.twt" "$tw" export "$tmp/a.twt" -f json -o "$tmp/$out"
  refused "$same" "$tmp/a.twt" "$tw" export "$tmp/a.twt" -f perfetto -o "$tmp/$out"
done
refused "$same" "$tmp/a.twt" "$tw" index "$tmp/soft.twt" -o "$tmp/hard.twt"
# a plugin parameter naming the trace (the plugin would write it): a
# refused parameter is a usage error
want=2
refused "$same" "$tmp/a.twt" "$tw" run "$tmp/a.twt" --plugin "$plugins/libanalysis.so@an" \
  --param "TRACE.an.file=$tmp/hard.twt"
refused "$same" "$tmp/a.twt" "$tw" run "$tmp/a.twt" --plugin "$plugins/libfieldprint.so@fp" \
  --param "TRACE.fp.file=$tmp/a.twt"
want=1
# standard output redirected onto the input ('>>': the shell does not cut it)
before=$(sum "$tmp/a.twt")
timeout 20 "$tw" report "$tmp/a.twt" -o - >> "$tmp/a.twt" 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "standard output" "$tmp/err" || fail "report -o - >> input: $(cat "$tmp/err")"
timeout 20 "$tw" index "$tmp/a.twt" -o - >> "$tmp/a.twt" 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "standard output" "$tmp/err" || fail "index -o - >> input: $(cat "$tmp/err")"
for cmd in print stats info sources summary analyze; do
  timeout 20 "$tw" $cmd "$tmp/a.twt" >> "$tmp/hard.twt" 2> "$tmp/err"
  [ $? -eq 1 ] && grep -q "standard output" "$tmp/err" || fail "$cmd >> input: $(cat "$tmp/err")"
done
[ "$(sum "$tmp/a.twt")" = "$before" ] || fail "a.twt changed through standard output"
# record from a file into that file would feed on its own output
refused "$same" "$tmp/raw.bin" "$tw" record --from "$tmp/raw.bin" -o "$tmp/raw-link.bin" -q
refused "$same" "$tmp/raw.bin" "$tw" record --from "$tmp/raw-link.bin" -o "$tmp/raw.bin" -q

# index in place: a damaged file is not replaced (the repro of issue 19
# shrank from 433,559 to 10,512 bytes); with -o the copy keeps everything
# a reader reads
repro=$src/../shared/repro/index_inplace_truncates.twt
if [ -f "$repro" ]; then
  cp "$repro" "$tmp/d.twt"
  chmod u+w "$tmp/d.twt"
  refused "has damage" "$tmp/d.twt" "$tw" index "$tmp/d.twt"
  ls "$tmp"/d.twt.index-tmp* >/dev/null 2>&1 && fail "index left its temporary file"
  timeout 20 "$tw" index "$tmp/d.twt" -o "$tmp/d2.twt" 2>/dev/null
  [ $? -eq 3 ] || fail "index -o of a damaged file: want exit 3"
  "$tw" print "$tmp/d.twt" > "$tmp/p1" 2>/dev/null
  "$tw" print "$tmp/d2.twt" > "$tmp/p2" 2>/dev/null
  [ -s "$tmp/p1" ] && cmp -s "$tmp/p1" "$tmp/p2" || fail "the indexed copy prints differently"
  "$tw" info "$tmp/d2.twt" | grep -q "stopped cleanly" || fail "the copy lost its END"
elif [ "${CI:-}" = true ]; then
  fail "no reproducers at $repro"
fi
# in place on a sound file: replaced, and prints as before
"$tw" print "$tmp/a.twt" > "$tmp/p1" 2>/dev/null
"$tw" index "$tmp/a.twt" --every 4K 2>"$tmp/err" || fail "index in place: $(cat "$tmp/err")"
"$tw" print "$tmp/a.twt" > "$tmp/p2" 2>/dev/null
cmp -s "$tmp/p1" "$tmp/p2" || fail "in-place index changed what the trace prints"
"$tw" info "$tmp/a.twt" | grep -q "time index: [0-9]* points" || fail "no index after index"
echo "no_destroy: ok"
