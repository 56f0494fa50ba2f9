#!/usr/bin/env bash
# Issue 19, item 12: an indexed .twt with a damaged chunk header before a
# time window. A full read used to stop at the damage ("the rest of the
# file is not read") while print --filter time= seeked past it through the
# index and printed events a full read never reached; `index` claimed the
# file had no END. Now every reader passes over the damaged chunk (the
# bytes up to the next chunk header, said with offsets): the window prints
# exactly the full read's lines in it, and index keeps the END.
# Args: build dir, source dir.
set -uo pipefail
build=$(cd "$1" && pwd)
tw=$build/tools/tracewire
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "index_damage: FAIL: $*" >&2; exit 1; }

"$tw" synth -o "$tmp/raw.bin" --packets 4000 --switches 2>/dev/null || fail synth
"$tw" record --from "$tmp/raw.bin" -o "$tmp/plain.twt" -q 2>/dev/null || fail record
"$tw" index "$tmp/plain.twt" -o "$tmp/t.twt" --every 8K -q || fail index
"$tw" info "$tmp/t.twt" > "$tmp/info" 2>/dev/null
grep -q "time index: [0-9]* points" "$tmp/info" || fail "no index: $(grep index "$tmp/info")"

# damage the header of a DATA chunk a quarter into the file
python3 - "$tmp/t.twt" <<'EOF'
import struct, sys
path = sys.argv[1]
b = bytearray(open(path, 'rb').read())
off, target = 32, len(b) // 4
while off + 24 <= len(b):
    magic, typ, src, n = struct.unpack_from('<IHHI', b, off)
    if typ == 2 and off >= target:
        b[off] ^= 0x01
        break
    off += 24 + n
open(path, 'wb').write(b)
EOF

"$tw" print "$tmp/t.twt" > "$tmp/full" 2> "$tmp/err"
[ $? -eq 3 ] || fail "full read of the damaged file: want exit 3"
grep -q "damaged chunk header at file offset [0-9]*; [0-9]* bytes skipped to the next chunk header" \
  "$tmp/err" || fail "the damage is not said: $(head -3 "$tmp/err")"
n=$(wc -l < "$tmp/full")
[ "$n" -gt 1000 ] || fail "the full read stopped at the damage ($n lines)"
# a window in the last third: through the index, and cut from the full read
from=$(sed -n "$((n * 2 / 3))p" "$tmp/full" | sed 's/^\[\([0-9.]*\)\].*/\1/')
to=$(sed -n "$((n * 3 / 4))p" "$tmp/full" | sed 's/^\[\([0-9.]*\)\].*/\1/')
"$tw" print --filter "time=$from..$to" "$tmp/t.twt" > "$tmp/win" 2> "$tmp/err"
grep -q "reading the whole file instead" "$tmp/err" && fail "the index was not used"
awk -v a="$from" -v b="$to" '{ t = substr($1, 2, length($1) - 2) + 0; if (t >= a + 0 && t <= b + 0) print }' \
  "$tmp/full" > "$tmp/cut"
# the first line's (+delta) is relative to the line before it in each
sed 's/ (+[0-9.]*) / /' "$tmp/cut" > "$tmp/a"
sed 's/ (+[0-9.]*) / /' "$tmp/win" > "$tmp/b"
[ -s "$tmp/a" ] || fail "empty window"
cmp -s "$tmp/a" "$tmp/b" || fail "the window's lines differ from the full read's ($(wc -l < "$tmp/a") vs $(wc -l < "$tmp/b"))"

# index keeps the END of a damaged file (it used to claim there was none)
"$tw" index "$tmp/t.twt" -o "$tmp/re.twt" -q 2> "$tmp/err"
[ $? -eq 3 ] || fail "index -o of a damaged file: want exit 3"
grep -q "not closed cleanly" "$tmp/err" && fail "index claims no END: $(cat "$tmp/err")"
"$tw" info "$tmp/re.twt" > "$tmp/info" 2>/dev/null # exit 3: the lost chunk is a hole in the stream
grep -q "stopped cleanly" "$tmp/info" || fail "the copy has no END"
echo "index_damage: ok"
