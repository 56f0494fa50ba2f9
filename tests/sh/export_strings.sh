#!/usr/bin/env bash
# Target strings cannot break an exporter, nor be cut (docs/exporters.md,
# "Names and strings"). tests/strings/strings_target.c sends, through the
# real logger and streamer, custom kinds named with `*/`, quotes, braces,
# non-ASCII and invalid UTF-8, with fields that collide once rewritten
# (a,b / a.b), repeat (x twice), are keywords (struct, Bool) or names the
# formats add (marker, seq); task names of 100 bytes, non-ASCII and
# invalid; string values from empty to 1000 bytes with controls, invalid
# UTF-8 and NUL bytes. The manifest it writes is the ground truth. Each
# consumer is the real one:
#  - CTF: babeltrace2 reads the trace; event names, field names (the rule
#    re-implemented below) and every string value, byte for byte (a NUL as
#    U+FFFD)
#  - JSON: Python's json, with duplicate keys refused and the file read as
#    strict UTF-8; names, keys and values equal to Python's own
#    decode('utf-8', 'replace') of the bytes sent, whole
#  - CSV: Python's csv; file names and header cells by the rule, values
#    byte for byte
#  - Perfetto: no invalid UTF-8 the target sent is in the file, the repaired
#    strings are
#  - the same trace exported twice: the same bytes (the names are
#    deterministic)
#  - --clock-offset 1700000000.25: offset exact at 1 MHz; bad offsets are
#    usage errors naming the option
set -euo pipefail
B=$1
tw=$B/tools/tracewire
tgt=$B/tests/tw-strings-target
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
for tool in babeltrace2:babeltrace2 python3:python3; do
  if ! command -v "${tool%%:*}" >/dev/null; then
    [ "${CI:-}" = true ] && fail "${tool%%:*} not installed (Debian package ${tool#*:})"
    echo "SKIP: ${tool%%:*} not installed: install the Debian package '${tool#*:}'" >&2
    exit 77
  fi
done
[ -x "$tgt" ] || fail "$tgt not built"

"$tgt" "$tmp/t.bin" "$tmp/manifest"
"$tw" export -q "$tmp/t.bin" -f ctf -o "$tmp/ctf"
"$tw" export -q "$tmp/t.bin" -f json -o "$tmp/t.json"
"$tw" export -q "$tmp/t.bin" -f csv -o "$tmp/csv"
"$tw" export -q "$tmp/t.bin" -f perfetto -o "$tmp/t.pftrace"
. "$2/tests/perfetto_validate.sh"
perfetto_validate "$2" "$tw" "$tmp/t.pftrace" >&2 || fail "the Perfetto export fails tests/perfetto_check.py"
babeltrace2 "$tmp/ctf" > "$tmp/bt.txt" 2> "$tmp/bt.err" \
  || fail "babeltrace2 cannot read the CTF trace: $(head -5 "$tmp/bt.err")"

python3 - "$tmp" <<'EOF'
import csv, json, os, re, sys
tmp = sys.argv[1]
def fail(msg):
    sys.exit('FAIL: ' + msg)

# ---- the manifest: what the target sent ------------------------------------
kinds, tasks, values = {}, {}, []
for line in open(tmp + '/manifest'):
    w = line.split()
    unhex = lambda h: b'' if h == '-' else bytes.fromhex(h)
    if w[0] == 'kind':
        kinds[int(w[1])] = [unhex(x) for x in w[2:]]   # name, fields...
    elif w[0] == 'task':
        tasks[int(w[1])] = unhex(w[2])
    elif w[0] == 'value':
        values.append((int(w[1]), unhex(w[2])))
KIND_NAMES = {40, 41}
text = lambda b: b.decode('utf-8', 'replace')        # the UTF-8 rule

# The unique-name rule (text.h): first come keeps the name, later ones the
# first free _2, _3, ...; reserved names count as taken.
def unique(forms, reserved=()):
    taken, out = set(reserved), []
    for f in forms:
        g, k = f, 2
        while g in taken:
            g, k = '%s_%d' % (f, k), k + 1
        taken.add(g)
        out.append(g)
    return out

def tsdl_ident(b):
    return '_' + ''.join(c if c.isascii() and (c.isalnum() or c == '_') else '_' for c in text(b))

# ---- CTF through babeltrace2 ---------------------------------------------------
def bt_unescape(s):
    esc = {'n': b'\n', 't': b'\t', 'r': b'\r', 'e': b'\x1b', 'a': b'\a', 'b': b'\b',
           'f': b'\f', 'v': b'\v', '\\': b'\\', '"': b'"', "'": b"'", '?': b'?'}
    out, i = b'', 0
    while i < len(s):
        if s[i:i + 1] == b'\\':
            c = chr(s[i + 1])
            if c == 'x':
                out += bytes([int(s[i + 2:i + 4], 16)]); i += 4; continue
            out += esc[c]; i += 2; continue
        out += s[i:i + 1]; i += 1
    return out

bt_events = []
for line in open(tmp + '/bt.txt', 'rb'):
    m = re.match(rb'\[[^]]*\] \([^)]*\) (.*?): \{ endpoint = \d+, core = \d+ \}, \{ (.*) \}\n$', line)
    if not m:
        fail('babeltrace2 line not understood: %r' % line[:200])
    bt_events.append((m.group(1), m.group(2)))
for kid in sorted(KIND_NAMES):
    name = text(kinds[kid][0]).encode()
    got = [b for n, b in bt_events if n == name]
    if len(got) != 1:
        fail('CTF: event %r: %d in babeltrace2 output (names: %s)'
             % (name, len(got), sorted({n for n, _ in bt_events})))
    want = [i[1:] for i in unique([tsdl_ident(f) for f in kinds[kid][1:]],
                                  ('_Bool', '_Complex', '_Imaginary'))]
    have = [kv.split(' = ')[0] for kv in got[0].decode().split(', ')]
    if have != want:
        fail('CTF: fields of %r: babeltrace2 shows %s, want %s' % (name, have, want))
bt_values = [bt_unescape(re.fullmatch(rb'[sb] = "(.*)"', b, re.S).group(1))
             for n, b in bt_events if n in (b'Text', b'Blob')]
want_values = [v.replace(b'\0', '\ufffd'.encode()) for _, v in values]
if bt_values != want_values:
    for a, b in zip(bt_values, want_values):
        if a != b:
            fail('CTF: string value %r, sent %r' % (a[:80], b[:80]))
    fail('CTF: %d string values, sent %d' % (len(bt_values), len(want_values)))

# ---- JSON: a real parser, unique keys, valid UTF-8 ----------------------------------
def no_dups(pairs):
    keys = [k for k, _ in pairs]
    if len(keys) != len(set(keys)):
        fail('JSON: an object with duplicate keys: %s' % keys)
    return dict(pairs)
raw = open(tmp + '/t.json', 'rb').read()
try:
    raw.decode('utf-8', 'strict')
except UnicodeDecodeError as e:
    fail('JSON file is not valid UTF-8: %s' % e)
doc = json.loads(raw, object_pairs_hook=no_dups)
evs = doc['traceEvents']
threads = {e['args']['name'] for e in evs if e.get('name') == 'thread_name'}
for n, b in tasks.items():
    if text(b) not in threads:
        fail('JSON: task %d named %r missing (whole) from %s' % (n, text(b), sorted(threads)))
for kid in sorted(KIND_NAMES):
    inst = [e for e in evs if e['ph'] == 'i' and e['name'] == text(kinds[kid][0])]
    if len(inst) != 1:
        fail('JSON: event %r appears %d times' % (text(kinds[kid][0]), len(inst)))
    want = unique([text(f) for f in kinds[kid][1:]], ('marker', 'time'))
    if list(inst[0]['args']) != want:
        fail('JSON: args of %r are %s, want %s' % (inst[0]['name'], list(inst[0]['args']), want))
js_values = [list(e['args'].values())[0] for e in evs
             if e['ph'] == 'i' and e['name'] in ('Text', 'Blob')]
if js_values != [text(v) for _, v in values]:
    fail('JSON: string values differ from what was sent:\n  %r\n  %r'
         % ([v[:40] for v in js_values], [text(v)[:40] for _, v in values]))
if 'caf\u00e9' not in raw.decode() or 'caf\u00c3\u00a9' in raw.decode():
    fail('JSON: "café" not kept as UTF-8')

# ---- CSV ---------------------------------------------------------------------------
def file_name(b):
    s = ''.join(c if (c.isascii() and (c.isalnum() or c in '_-')) or (not c.isascii() and c != '\ufffd')
                else '_' for c in text(b))
    return s or '_'
files = sorted(os.listdir(tmp + '/csv'))
fixed = ('time_ns', 'endpoint', 'core', 'seq', 'time_inferred', 'marker')
for kid in sorted(KIND_NAMES):
    fn = file_name(kinds[kid][0]) + '.csv'
    if fn not in files:
        fail('CSV: no file %r for %r (files: %s)' % (fn, kinds[kid][0], files))
    rows = list(csv.reader(open(os.path.join(tmp, 'csv', fn), encoding='latin-1', newline='')))
    want = unique([f.decode('latin-1') for f in kinds[kid][1:]], fixed)
    if rows[0][:5] != list(fixed[:5]) or rows[0][5:] != want:
        fail('CSV: header of %s is %s, want %s' % (fn, rows[0], list(fixed[:5]) + want))
csv_values = []
for fn in ('Text.csv', 'Blob.csv'):
    for r in list(csv.reader(open(os.path.join(tmp, 'csv', fn), encoding='latin-1', newline='')))[1:]:
        csv_values.append(r[5].encode('latin-1'))
if csv_values != [v for _, v in values]:
    fail('CSV: string values differ from the bytes sent')

# ---- Perfetto: what was invalid is not in the file, the repaired text is ------------
pf = open(tmp + '/t.pftrace', 'rb').read()
for label, b in [('task 3', tasks[3]), ('kind 41', kinds[41][0])] + \
                [('value %d' % i, v) for i, (_, v) in enumerate(values)]:
    fixed_b = text(b).encode()
    if fixed_b != b and b in pf:
        fail('Perfetto: %s written with invalid UTF-8: %r' % (label, b))
    if len(b) > 3 and fixed_b not in pf:
        fail('Perfetto: %s not found as %r' % (label, fixed_b[:60]))
print('export_strings: CTF (babeltrace2), JSON, CSV and Perfetto keep %d names and %d values whole'
      % (len(tasks) + sum(len(k) for k in kinds.values()), len(values)))
EOF

# The same input, the same output: names are chosen deterministically.
"$tw" export -q "$tmp/t.bin" -f csv -o "$tmp/csv2"
"$tw" export -q "$tmp/t.bin" -f json -o "$tmp/t2.json"
diff -r "$tmp/csv" "$tmp/csv2" >/dev/null || fail "CSV differs between two exports"
cmp -s "$tmp/t.json" "$tmp/t2.json" || fail "JSON differs between two exports"

# --clock-offset is decimal, exact to the nanosecond: 0.25 s is 250000
# ticks of the 1 MHz clock (through a double it was 249999).
"$tw" export -q "$tmp/t.bin" -f ctf -o "$tmp/ctf_off" --clock-offset 1700000000.25
grep -q 'offset_s = 1700000000;' "$tmp/ctf_off/metadata" || fail "offset_s not 1700000000"
grep -q 'offset = 250000;' "$tmp/ctf_off/metadata" \
  || fail "--clock-offset 1700000000.25: $(grep 'offset =' "$tmp/ctf_off/metadata")"
for bad in 1e9 1.0000000001 9223372037 -- inf " 1"; do
  rc=0
  "$tw" export -q "$tmp/t.bin" -f ctf -o "$tmp/ctf_bad" --clock-offset "$bad" 2> "$tmp/err" || rc=$?
  [ $rc -eq 2 ] || fail "--clock-offset '$bad': exit $rc, want 2 (usage)"
  grep -q -- '--clock-offset' "$tmp/err" || fail "--clock-offset '$bad': message $(cat "$tmp/err")"
done
echo "export_strings: ok"
