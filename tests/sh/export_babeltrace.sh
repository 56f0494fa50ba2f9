#!/usr/bin/env bash
# The CTF exporter against the real reader: babeltrace2 (Debian 2.0.4) must
# read what we write, and its text output must carry, event by event and
# stream by stream, the same event names, timestamps and field values as
# `tracewire print`. The trace has every event kind (and a custom one), two
# endpoints with two cores each, a 32-bit timestamp wrap (32-bit logger
# timestamps extended by the decoder), ring-overflow drops, and a packet
# lost in transport; babeltrace2 must report exactly the discarded events
# the decoder counted. Also run through the .so plugin: same bytes.
set -euo pipefail
B=$1
tw=$B/tools/tracewire
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if ! command -v babeltrace2 >/dev/null; then
  if [ "${CI:-}" = true ]; then
    fail "babeltrace2 not installed (Debian package babeltrace2; scripts/deps.sh installs it)"
  fi
  echo "SKIP: babeltrace2 not installed: install the Debian package 'babeltrace2'" >&2
  exit 77
fi
command -v python3 >/dev/null || fail "python3 not installed (Debian package python3)"

"$tw" synth -o "$tmp/full.bin" --packets 160 --instances 2 --endpoints 2 --drop-every 25 \
  --start-ticks 0xFFFFE000 --ts32 --control --switches 2>/dev/null
# Lose one whole packet in transport: packet 50 (the EventPkt header's
# first word is big-endian with the packet length in b26-0, see
# docs/wire-format.md).
python3 - "$tmp/full.bin" "$tmp/t.bin" <<'EOF'
import sys
data = open(sys.argv[1], 'rb').read()
out, off, n = bytearray(), 0, 0
while off < len(data):
    w0 = int.from_bytes(data[off:off + 4], 'big')
    length = w0 & 0x7FFFFFF
    if length < 16 or off + length > len(data):
        sys.exit('cannot walk packets at offset %d (word 0x%08x)' % (off, w0))
    if n != 50:
        out += data[off:off + length]
    off += length
    n += 1
open(sys.argv[2], 'wb').write(out)
EOF

"$tw" stats "$tmp/t.bin" > "$tmp/stats.txt" 2>/dev/null || true
ring=$(sed -n 's/^drops total: ring overflow \([0-9]*\);.*/\1/p' "$tmp/stats.txt")
lost=$(sed -n 's/^drops total: .*transport [0-9]* packets (\([0-9]*\) events).*/\1/p' "$tmp/stats.txt")
[ -n "$ring" ] && [ "$ring" -gt 0 ] || fail "no ring drops in the test trace: $(cat "$tmp/stats.txt")"
[ -n "$lost" ] && [ "$lost" -gt 0 ] || fail "no transport loss in the test trace: $(grep drops "$tmp/stats.txt")"

cat > "$tmp/cmp.py" <<'EOF'
import re, sys
from collections import defaultdict

def split_fields(body):
    """'a = 1, b = "x, y", c = ( "L" : container = 3 )' -> list of (name, value)."""
    out, depth, cur, q = [], 0, '', False
    for ch in body:
        if ch == '"':
            q = not q
        if not q and ch == '(':
            depth += 1
        if not q and ch == ')':
            depth -= 1
        if ch == ',' and not q and depth == 0:
            out.append(cur.strip()); cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [tuple(x.split(' = ', 1)) for x in out]

def norm_bt(v):
    m = re.fullmatch(r'\( "(.*)" : container = (\d+) \)', v)
    if m:
        return m.group(1)
    m = re.fullmatch(r'\( <unknown> : container = (\d+) \)', v)
    return m.group(1) if m else v

def norm_tw(v):
    # print adds the object's name after a number: 3 "control_loop"
    m = re.fullmatch(r'(\d+) ".*"', v)
    return m.group(1) if m else v

streams_tw, streams_bt = defaultdict(list), defaultdict(list)
for line in open(sys.argv[1]):
    m = re.match(r'\[(\d+\.\d{9})\] \(\S+\) ([0-9a-f]{4})/(\d+) (\w+): \{ (.*) \}(, marker = \w+)?$', line)
    if not m:
        sys.exit('unparsed tracewire print line: ' + line)
    key = (int(m.group(2), 16), int(m.group(3)))
    fields = tuple((k, norm_tw(v)) for k, v in split_fields(m.group(5)))
    streams_tw[key].append((m.group(1), m.group(4), fields))
for line in open(sys.argv[2]):
    m = re.match(r'\[(\d+\.\d{9})\] \(\S+\) (\w+): \{ endpoint = (\d+), core = (\d+) \}, \{ (.*) \}$', line)
    if not m:
        sys.exit('unparsed babeltrace2 line: ' + line)
    key = (int(m.group(3)), int(m.group(4)))
    fields = tuple((k, norm_bt(v)) for k, v in split_fields(m.group(5)))
    streams_bt[key].append((m.group(1), m.group(2), fields))

if sorted(streams_tw) != sorted(streams_bt):
    sys.exit('streams differ: print %s, babeltrace2 %s' % (sorted(streams_tw), sorted(streams_bt)))
total, kinds = 0, set()
for key in sorted(streams_tw):
    a, b = streams_tw[key], streams_bt[key]
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            sys.exit('stream %04x/%d event %d differs:\n  print:      %s\n  babeltrace2: %s' % (key[0], key[1], i, x, y))
    if len(a) != len(b):
        sys.exit('stream %04x/%d: print has %d events, babeltrace2 %d' % (key[0], key[1], len(a), len(b)))
    total += len(a)
    kinds |= {e[1] for e in a}
wraps = any(e[0] < '4294.967296' for s in streams_tw.values() for e in s) and \
        any(e[0] > '4294.967296' for s in streams_tw.values() for e in s)
if sys.argv[4] == '1' and not wraps:
    sys.exit('the trace does not cross the 32-bit timestamp wrap')
print('babeltrace2 agrees with tracewire print on %s: %d events, %d streams, %d event kinds' % (sys.argv[5], total, len(streams_tw), len(kinds)))
if len(kinds) < int(sys.argv[3]):
    sys.exit('only %d event kinds in the trace: %s' % (len(kinds), sorted(kinds)))
EOF

# crosscheck TRACE OUTDIR MIN_KINDS WRAP(1/0) NAME
crosscheck() {
  "$tw" print -q "$1" > "$tmp/print.txt" || [ $? -eq 3 ]
  "$tw" export -q "$1" --format ctf -o "$2" --packet-bytes 8192 || [ $? -eq 3 ]
  babeltrace2 --clock-seconds "$2" > "$tmp/bt.txt" 2> "$tmp/bt.err" \
    || fail "babeltrace2 failed on $5: $(head -20 "$tmp/bt.err")"
  python3 "$tmp/cmp.py" "$tmp/print.txt" "$tmp/bt.txt" "$3" "$4" "$5" || fail "$5: see above"
}
crosscheck "$tmp/t.bin" "$tmp/ctf" 24 1 "the synthetic trace"

got=$(grep -o 'Tracer discarded [0-9]* events' "$tmp/bt.err" | awk '{s += $3} END {print s + 0}')
[ "$got" -eq $((ring + lost)) ] \
  || fail "babeltrace2 reports $got discarded events, the decoder saw $ring (ring) + $lost (transport)"
if grep -q 'may have discarded' "$tmp/bt.err"; then fail "a discard without a count"; fi

# The same exporter as a shared-library plugin writes the same trace (on
# the trace without transport loss: a .so sees only the model's events,
# not the decoder's loss counts).
"$tw" export -q "$tmp/full.bin" --format ctf -o "$tmp/ctf1" --packet-bytes 8192
"$tw" run -q "$tmp/full.bin" --plugin "$B/plugins/libtw_export_ctf.so@ctf" \
  --param TRACE.ctf.out="$tmp/ctf2" --param TRACE.ctf.packet_bytes=8192 >/dev/null
for f in "$tmp"/ctf1/*; do
  cmp "$f" "$tmp/ctf2/$(basename "$f")" || fail "plugin output differs: $(basename "$f")"
done
# The modelled RTOS (sim) through the real logger and streamer on the
# POSIX port: a workload's task switches, interrupts and sync operations.
demo=$B/examples/demo-target/tw-demo-target
if [ -x "$demo" ]; then
  "$demo" --scenario demo --seed 3 --out "$tmp/demo.bin" --quiet
  crosscheck "$tmp/demo.bin" "$tmp/demo_ctf" 8 0 "the sim demo target's trace"
fi
echo "export_babeltrace: ok ($got discarded events: $ring ring overflow + $lost transport)"
