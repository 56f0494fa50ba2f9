#!/usr/bin/env bash
# `tracewire summary` tells the causes of loss apart: the demo's stream
# (tw-demo-target --out: raw UIA packets, ring drops in the storm) once
# intact and once with one event packet cut out (a link that lost it).
# The cut copy reports exactly that packet and the events it carried as
# lost in transport, the same ring drops, nothing unexplained, and
# events + transport loss = the intact count; its findings and CPU lines
# are still printed.
# Args: build dir, source dir.
set -euo pipefail
build=$(cd "$1" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "summary_loss: FAIL: $*" >&2; exit 1; }
tw=$build/tools/tracewire
"$build/examples/demo-target/tw-demo-target" --scenario demo --seed 1 --out "$tmp/all.bin" --quiet
# cut the 100th packet (before the storm: events only); packet length is
# the low 27 bits of the big-endian first header word
python3 - "$tmp/all.bin" "$tmp/cut.bin" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
off, n, out = 0, 0, bytearray()
while off < len(data):
    w = struct.unpack(">I", data[off:off + 4])[0]
    ln = w & 0x7FFFFFF
    assert w >> 28 == 10 and 16 < ln <= 128, (off, hex(w))
    if n != 100:
        out += data[off:off + ln]
    off += ln
    n += 1
open(sys.argv[2], "wb").write(out)
PY
"$tw" summary -q "$tmp/all.bin" > "$tmp/all.txt" || fail "summary of the intact stream: exit $?"
rc=0; "$tw" summary -q "$tmp/cut.bin" > "$tmp/cut.txt" || rc=$?
[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "summary of the cut stream: exit $rc"
num() { sed -n "$2" "$1"; }
all=$(num "$tmp/all.txt" 's/^events *\([0-9]*\) kernel.*/\1/p')
cut=$(num "$tmp/cut.txt" 's/^events *\([0-9]*\) kernel.*/\1/p')
read -r ring tr pk un < <(num "$tmp/cut.txt" \
  's/^drops .* ring overflow \([0-9]*\) (.*transport \([0-9]*\) (\([0-9]*\) packets), unexplained \([0-9]*\)$/\1 \2 \3 \4/p')
read -r ring0 tr0 pk0 < <(num "$tmp/all.txt" \
  's/^drops .* ring overflow \([0-9]*\) (.*transport \([0-9]*\) (\([0-9]*\) packets).*/\1 \2 \3/p')
[ "$tr0" -eq 0 ] && [ "$pk0" -eq 0 ] || fail "the intact stream reports transport loss: $(cat "$tmp/all.txt")"
[ "$pk" -eq 1 ] || fail "cut stream: $pk packets lost, expected 1"
[ "$tr" -gt 0 ] && [ $((cut + tr)) -eq "$all" ] || fail "cut stream: $cut events + $tr lost != $all"
[ "$ring" -eq "$ring0" ] && [ "$un" -eq 0 ] || fail "cut stream: ring $ring (intact $ring0), unexplained $un"
grep -q "^findings" "$tmp/cut.txt" && grep -q "^CPU load" "$tmp/cut.txt" || fail "cut stream: summary incomplete"
echo "summary_loss: one packet cut: $tr events lost in transport, ring drops $ring as before, $cut + $tr = $all"
