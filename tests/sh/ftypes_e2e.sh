#!/usr/bin/env bash
# Signed and float custom fields end to end: the real target stack
# (examples/ftypes_target: tw_custom_declare "... temp:F32 err:I32 trim:I8
# dt:I16 raw:U32", tw_word_f32/tw_word_i32) writes a stream; every consumer
# must give back the values the target logged, which the reader below
# knows independently (the table in examples/ftypes_target/main.c):
#  - tracewire print: signed decimal; F32 in the fewest digits that read
#    back to the same float; nan, inf, -inf
#  - CSV: the same text as print
#  - Chrome JSON: numbers, NaN/Infinity as the strings "NaN", "Infinity",
#    "-Infinity"; parsed by Python's json with bare NaN/Infinity refused
#  - Perfetto: DebugAnnotation int_value (4) / double_value (5)
#  - CTF: babeltrace2 prints the same signed values and the same floats
#    (it prints %g: compared after the same rounding)
#  - tracewire sources: float 4 bytes, signed 4/1/2 bytes
#  - the CTF and JSON exporters as .so plugins: the same bytes
set -euo pipefail
B=$1
tw=$B/tools/tracewire
tgt=$B/examples/ftypes_target/tw_ftypes_target
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! command -v python3 >/dev/null; then
  [ "${CI:-}" = true ] && fail "python3 not installed (Debian package python3)"
  echo "SKIP: python3 not installed: install the Debian package 'python3'" >&2
  exit 77
fi
[ -x "$tgt" ] || fail "$tgt not built"

"$tgt" "$tmp/t.bin"
"$tw" print -q "$tmp/t.bin" > "$tmp/print.txt"
"$tw" export -q "$tmp/t.bin" -f csv -o "$tmp/csv"
"$tw" export -q "$tmp/t.bin" -f json -o "$tmp/t.json"
"$tw" export -q "$tmp/t.bin" -f perfetto -o "$tmp/t.pftrace"
. "$2/tests/perfetto_validate.sh"
perfetto_validate "$2" "$tw" "$tmp/t.pftrace" >&2 || fail "the Perfetto export fails tests/perfetto_check.py"
"$tw" export -q "$tmp/t.bin" -f ctf -o "$tmp/ctf"
"$tw" sources "$tmp/t.bin" --source Thermo > "$tmp/sources.txt"
# The exporters as MTI plugins (.so) see the same events: same bytes.
for f in ctf json; do
  "$tw" run -q "$tmp/t.bin" --plugin "$B/plugins/libtw_export_$f.so@x" \
    --param TRACE.x.out="$tmp/so_$f" >/dev/null
done
cmp "$tmp/so_json" "$tmp/t.json" || fail "JSON plugin output differs"
for f in "$tmp"/ctf/*; do
  cmp "$f" "$tmp/so_ctf/$(basename "$f")" || fail "CTF plugin output differs: $(basename "$f")"
done
bt=0
if command -v babeltrace2 >/dev/null; then
  babeltrace2 "$tmp/ctf" > "$tmp/bt.txt" 2> "$tmp/bt.err" \
    || fail "babeltrace2 failed: $(head -20 "$tmp/bt.err")"
  bt=1
elif [ "${CI:-}" = true ]; then
  fail "babeltrace2 not installed (Debian package babeltrace2)"
else
  echo "WARNING: babeltrace2 not installed (Debian package babeltrace2): CTF not read back" >&2
fi
grep -q 'signed = true' "$tmp/ctf/metadata" || fail "CTF metadata has no signed integer"
grep -q 'floating_point { exp_dig = 8; mant_dig = 24;' "$tmp/ctf/metadata" \
  || fail "CTF metadata has no 32-bit float"

PYTHONPATH="$(dirname "$0")" python3 - "$tmp" "$bt" <<'EOF'
import json, math, re, struct, sys
tmp, have_bt = sys.argv[1], sys.argv[2] == '1'
def fail(m):
    sys.exit('FAIL: ' + m)

def f32(x):
    try:
        return struct.unpack('<f', struct.pack('<f', x))[0]
    except OverflowError:  # beyond FLT_MAX and its rounding margin
        return math.copysign(float('inf'), x)
inf, nan = float('inf'), float('nan')
# temp, err, trim, dt, raw: what the target logged
rows = [(21.5, -5, -1, -300, 7), (-21.5, -2**31, -128, -32768, 0xFFFFFFFF),
        (f32(0.1), 2**31 - 1, 127, 32767, 0), (-0.0, 0, 0, 0, 1),
        (f32(3.4028234663852886e38), -1, 1, 1, 2), (f32(1e-45), 123456789, -2, -2, 3),
        (nan, -42, 42, -1234, 4), (inf, 1, -100, 1000, 5), (-inf, -1000000, 100, -1000, 6),
        (f32(3.14159274), -7, -7, -7, 8)]
names = ['temp', 'err', 'trim', 'dt', 'raw']

def same_float(a, b):
    if math.isnan(a) or math.isnan(b):
        return math.isnan(a) and math.isnan(b)
    return a == b and math.copysign(1, a) == math.copysign(1, b)

def check_row(where, i, got):
    """got: [temp(float), err, trim, dt, raw]"""
    want = rows[i]
    if not same_float(float(got[0]), want[0]):
        fail('%s row %d: temp %r, the target logged %r' % (where, i, got[0], want[0]))
    if list(got[1:]) != list(want[1:]):
        fail('%s row %d: %r, the target logged %r' % (where, i, got[1:], want[1:]))

def text_float(s):
    """print/CSV spelling: the fewest %g digits that read back as the float."""
    v = f32(float(s))
    if math.isfinite(v):
        want = next(t for t in ('%.*g' % (p, v) for p in range(1, 10)) if f32(float(t)) == v)
        if s != want:
            fail('float printed %r, want %r (fewest digits that round-trip)' % (s, want))
    elif s not in ('nan', 'inf', '-inf'):
        fail('non-finite float printed %r' % s)
    return v

# ---- print --------------------------------------------------------------------
printed = []
for line in open(tmp + '/print.txt'):
    m = re.search(r' Thermo: \{ (.*) \}$', line)
    if m:
        kv = dict(x.split(' = ') for x in m.group(1).split(', '))
        if list(kv) != names:
            fail('print fields %r' % list(kv))
        printed.append([kv[n] for n in names])
if len(printed) != len(rows):
    fail('print shows %d Thermo events, want %d' % (len(printed), len(rows)))
for i, p in enumerate(printed):
    check_row('print', i, [text_float(p[0])] + [int(x) for x in p[1:]])
print('print: %d events, signed and float values exact' % len(printed))

# ---- CSV ------------------------------------------------------------------------
lines = open(tmp + '/csv/Thermo.csv').read().splitlines()
if lines[0] != 'time_ns,endpoint,core,seq,time_inferred,temp,err,trim,dt,raw':
    fail('CSV header %r' % lines[0])
for i, l in enumerate(lines[1:]):
    if l.split(',')[4] != '0':
        fail('CSV row %d %r: time_inferred, but every record had a timestamp' % (i, l))
    if l.split(',')[5:] != printed[i]:
        fail('CSV row %d %r differs from print %r' % (i, l, printed[i]))
if len(lines) - 1 != len(rows):
    fail('CSV has %d rows' % (len(lines) - 1))

# ---- JSON -----------------------------------------------------------------------
def no_bare(c):
    fail('JSON has a bare %s: not valid JSON' % c)
doc = json.load(open(tmp + '/t.json'), parse_constant=no_bare)
got = [e['args'] for e in doc['traceEvents'] if e.get('name') == 'Thermo']
if len(got) != len(rows):
    fail('JSON has %d Thermo events' % len(got))
special = {'NaN': nan, 'Infinity': inf, '-Infinity': -inf}
for i, a in enumerate(got):
    t = a['temp']
    if isinstance(t, str):
        if t not in special:
            fail('JSON temp string %r' % t)
        t = special[t]
    for n in names[1:]:
        if not isinstance(a[n], int):
            fail('JSON %s is not a number: %r' % (n, a[n]))
    check_row('JSON', i, [f32(t)] + [a[n] for n in names[1:]])  # the float's shortest text

# ---- Perfetto -------------------------------------------------------------------
from pbwire import fields_raw as fields  # tests/sh/pbwire.py
ev_names, da_names, pf = {}, {}, []
for f, _, pkt in fields(open(tmp + '/t.pftrace', 'rb').read()):
    te = None
    for g, _, v in fields(pkt):
        if g == 12:  # interned_data: event_names 2, debug_annotation_names 3
            for h, _, e in fields(v):
                if h in (2, 3):
                    ent = {k: x for k, _, x in fields(e)}
                    (ev_names if h == 2 else da_names)[ent[1]] = ent[2].decode()
        if g == 11:
            te = v
    if te is None:
        continue
    tf = fields(te)
    name = next((ev_names.get(v) for g, _, v in tf if g == 10), None) or \
        next((v.decode() for g, _, v in tf if g == 23), None)
    if name != 'Thermo':
        continue
    args = {}
    for g, _, da in tf:
        if g != 4:
            continue
        d = {k: (w, x) for k, w, x in fields(da)}
        an = da_names[d[1][1]] if 1 in d else d[10][1].decode()
        if 4 in d:      # int_value: int64 varint
            x = d[4][1]
            args[an] = x - (1 << 64) if x >= 1 << 63 else x
        elif 5 in d:    # double_value: fixed64
            if d[5][0] != 1:
                fail('double_value with wire type %d' % d[5][0])
            args[an] = struct.unpack('<d', d[5][1])[0]
        elif 3 in d:
            args[an] = d[3][1]
        else:
            fail('annotation %s has no number: %r' % (an, d))
    pf.append(args)
if len(pf) != len(rows):
    fail('Perfetto has %d Thermo events' % len(pf))
for i, a in enumerate(pf):
    check_row('Perfetto', i, [a[n] for n in names])

# ---- babeltrace2 ------------------------------------------------------------------
if have_bt:
    bt = [l for l in open(tmp + '/bt.txt') if ' Thermo: ' in l]
    if len(bt) != len(rows):
        fail('babeltrace2 shows %d Thermo events' % len(bt))
    for i, l in enumerate(bt):
        m = re.search(r'\}, \{ (.*) \}$', l)
        kv = dict(x.split(' = ') for x in m.group(1).split(', '))
        want = rows[i]
        if [int(kv[n]) for n in names[1:]] != list(want[1:]):
            fail('babeltrace2 row %d: %r, the target logged %r' % (i, kv, want))
        if kv['temp'] != '%g' % want[0]:  # babeltrace2 prints reals with %g
            fail('babeltrace2 row %d: temp %s, want %s' % (i, kv['temp'], '%g' % want[0]))
    print('babeltrace2: %d events, the same signed and float values' % len(bt))

# ---- sources --------------------------------------------------------------------
src = open(tmp + '/sources.txt').read()
for f, t in [('temp', 'float, 4 bytes'), ('err', 'signed, 4 bytes'),
             ('trim', 'signed, 1 byte'), ('dt', 'signed, 2 bytes'), ('raw', 'unsigned, 4 bytes')]:
    if not re.search(r'field \d+ %s: %s' % (f, t), src):
        fail('tracewire sources does not list %s as %s:\n%s' % (f, t, src))
print('ftypes_e2e: print, CSV, JSON, Perfetto%s and sources agree with the target' %
      (', CTF (babeltrace2)' if have_bt else ''))
EOF
