#!/usr/bin/env bash
# The .twt time index from the command line (docs/trace-file.md, "Time
# index"; docs/cli.md): `record` writes one, `info` says so, `print
# --filter time=A..B` on the recording prints exactly what it prints for
# the raw packets it was recorded from (32-bit timestamps that wrap, DROPS,
# two targets with two logger instances each), `tracewire index` adds one
# to a trace whose index was cut off, and a damaged index is said in one
# line and read around.
#   tests/sh/twt_index.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
B=$(cd "$1" && pwd)
TW=$B/tools/tracewire
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$TW" synth -o "$T/raw.bin" --bytes 4M --ts32 --start-ticks 0xFFFFF000 --drop-every 500 \
  --instances 2 --endpoints 2 --switches 2> /dev/null
"$TW" record -q --from "$T/raw.bin" -o "$T/rec.twt" 2> /dev/null
"$TW" info "$T/rec.twt" | grep -q "^time index: [1-9][0-9]* points$" || fail "record wrote no index"

same() { # trace window
  "$TW" print -q --filter "time=$2" "$T/raw.bin" > "$T/a.txt" || fail "print raw $2: exit $?"
  "$TW" print -q --filter "time=$2" "$1" > "$T/b.txt" 2> "$T/b.err" || fail "print $1 $2: exit $?"
  [ -s "$T/a.txt" ] || fail "window $2 is empty"
  cmp -s "$T/a.txt" "$T/b.txt" || { diff "$T/a.txt" "$T/b.txt" | head; fail "$1 $2: differs from the full read"; }
}
for w in 4295..4295.2 4296.5..4297 4298.. ..4295.05; do
  same "$T/rec.twt" "$w"
  [ ! -s "$T/b.err" ] || fail "unexpected stderr: $(cat "$T/b.err")"
done
echo "ok: record's index, windows equal the full read"

# an index cut off (END and TOC gone): none; `tracewire index` adds it back
size=$(stat -c %s "$T/rec.twt")
toc=$(od -An -t u8 -j $((size - 8)) -N 8 "$T/rec.twt" | tr -d ' ')
head -c "$toc" "$T/rec.twt" > "$T/cut.twt"
"$TW" info "$T/cut.twt" | grep -q "^time index: none" || fail "a trace without END has no index"
rc=0; "$TW" index "$T/cut.twt" 2> "$T/idx.err" || rc=$?
[ $rc -eq 0 ] || fail "index exit $rc"
grep -q "was not closed cleanly" "$T/idx.err" || fail "index did not say the trace is unclean"
"$TW" info "$T/cut.twt" | grep -q "^time index: none" || fail "an unclean trace stays unclean"
"$TW" index -o "$T/re.twt" "$T/rec.twt" || fail "index -o exit $?"
"$TW" info "$T/re.twt" | grep -q "^time index: [1-9]" || fail "index -o wrote no index"
same "$T/re.twt" 4296..4296.3
echo "ok: tracewire index"

# a flipped TOC offset in END: one line, then the whole file
cp "$T/rec.twt" "$T/bad.twt"
printf '\x55' | dd of="$T/bad.twt" bs=1 seek=$((size - 8)) conv=notrunc 2> /dev/null
same "$T/bad.twt" 4296..4296.3
[ "$(wc -l < "$T/b.err")" -eq 1 ] && grep -q "reading the whole file instead" "$T/b.err" \
  || fail "damaged index: $(cat "$T/b.err")"
echo "ok: damaged index read around"
