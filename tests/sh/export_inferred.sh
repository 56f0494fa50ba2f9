#!/usr/bin/env bash
# Records without a timestamp (spec 000's HdrType_Event: header, id, fields)
# take the time of their stream's previous timed record and are marked
# inferred in print and in every export (issue 18). The stream is written
# here byte by byte from the spec's diagrams (ids from events.def, module
# numbers from vocab.h), not by tracewire's encoder.
set -euo pipefail
B=$1
S=$2
tw=$B/tools/tracewire
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

python3 - "$S" "$tmp/t.uia" <<'PY'
import re, struct, sys
src, out = sys.argv[1], sys.argv[2]
ids = {m.group(1): int(m.group(2), 0) for m in re.finditer(
    r'^TW_EVENT\((\w+), (\w+),', open(src + '/include/tracewire/events.def').read(), re.M)}
mods = {m.group(1): int(m.group(2)) for m in re.finditer(
    r'TW_MOD_(\w+) = (\d+)', open(src + '/include/tracewire/vocab.h').read())}
def hdr(t, n, seq): return t << 27 | n << 16 | seq          # EventHdr (000)
def le(*w): return b''.join(struct.pack('<I', x) for x in w)  # payload order: E = 0
recs = b''
recs += le(hdr(1, 20, 0), 3000, 0, ids['SYNC'] << 16 | mods['CONTROL'], 1000000)
recs += le(hdr(0, 12, 1), ids['TASK_SWITCH'] << 16 | mods['RTOS'], 1)
recs += le(hdr(0, 16, 2), ids['MUTEX'] << 16 | mods['RTOS'], 1 | 2 << 16, 0)
recs += le(hdr(1, 20, 3), 3500, 0, ids['TASK_SWITCH'] << 16 | mods['RTOS'], 2)
n = 16 + len(recs) + 4
pkt = struct.pack('>IIII', 10 << 28 | n, 0, 0x0001, 0xFFFF << 16 | 1) + recs
pkt += struct.pack('>I', n << 16 | 0x7777)                    # footer (001)
open(out, 'wb').write(pkt)
PY

"$tw" print "$tmp/t.uia" > "$tmp/print.txt"
[ "$(grep -c ', time = inferred$' "$tmp/print.txt")" -eq 2 ] \
  || fail "print: want 2 inferred events: $(cat "$tmp/print.txt")"
grep -q '^\[0.003000000\] .*TaskSwitch: { task = 1 }, marker = Push, time = inferred$' "$tmp/print.txt" \
  || fail "print: the task switch should take the SYNC's time: $(cat "$tmp/print.txt")"
grep -q '^\[0.003500000\] .*TaskSwitch: { task = 2 }, marker = Push$' "$tmp/print.txt" \
  || fail "print: the timed switch is not inferred"

"$tw" export -q "$tmp/t.uia" -f csv -o "$tmp/csv"
[ "$(sed -n 2p "$tmp/csv/MutexEvent.csv")" = "3000000,1,0,2,1,1,2,Lock,Up" ] \
  || fail "csv: $(cat "$tmp/csv/MutexEvent.csv")"
[ "$(cut -d, -f5 "$tmp/csv/TaskSwitch.csv" | tr '\n' ' ')" = "time_inferred 1 0 " ] \
  || fail "csv: $(cat "$tmp/csv/TaskSwitch.csv")"

"$tw" export -q "$tmp/t.uia" -f json -o "$tmp/t.json"
python3 - "$tmp/t.json" <<'PY' || fail "json"
import json, sys
ev = json.load(open(sys.argv[1]))['traceEvents']
marks = [e for e in ev if e.get('name') == 'time inferred']
assert len(marks) == 1 and marks[0]['args']['event'] == 'TaskSwitch', marks
mutex = [e for e in ev if e['ph'] == 'i' and e['name'].startswith('MutexEvent')]
assert len(mutex) == 1 and mutex[0]['args'].get('time') == 'inferred', mutex
assert all('time' not in e.get('args', {}) for e in ev if e['ph'] == 'i' and e not in mutex + marks)
PY

"$tw" export -q "$tmp/t.uia" -f perfetto -o "$tmp/t.pftrace"
grep -qa 'time inferred' "$tmp/t.pftrace" || fail "perfetto: no 'time inferred' instant"
grep -qa 'inferred' "$tmp/t.pftrace" || fail "perfetto: no inferred arg"
. "$S/tests/perfetto_validate.sh"
perfetto_validate "$S" "$tw" "$tmp/t.pftrace" >&2 || fail "the Perfetto export fails tests/perfetto_check.py"

"$tw" export -q "$tmp/t.uia" -f ctf -o "$tmp/ctf"
grep -q '_time_inferred' "$tmp/ctf/metadata" || fail "ctf: no twin class in the metadata"
if ! command -v babeltrace2 >/dev/null; then
  [ "${CI:-}" = true ] && fail "babeltrace2 missing (Debian: babeltrace2)"
  echo "SKIP (partly): babeltrace2 not installed (Debian: babeltrace2); CTF read back not checked" >&2
  echo "export_inferred: ok (print, csv, json, perfetto; ctf metadata)"
  exit 0
fi
babeltrace2 "$tmp/ctf" > "$tmp/bt.txt" 2> "$tmp/bt.err" || fail "babeltrace2: $(cat "$tmp/bt.err")"
[ "$(grep -c 'time_inferred = 1' "$tmp/bt.txt")" -eq 2 ] || fail "babeltrace2: $(cat "$tmp/bt.txt")"
grep 'time_inferred = 1' "$tmp/bt.txt" | grep -q 'MutexEvent' || fail "babeltrace2: $(cat "$tmp/bt.txt")"
[ "$(wc -l < "$tmp/bt.txt")" -eq 4 ] || fail "babeltrace2 shows $(wc -l < "$tmp/bt.txt") events, want 4"
echo "export_inferred: ok (print, csv, json, perfetto, ctf read back by babeltrace2)"
