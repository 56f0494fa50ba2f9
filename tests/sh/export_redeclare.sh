#!/usr/bin/env bash
# A custom kind declared again, differently, in the same trace
# (docs/exporters.md, "A custom kind declared again"): each event is
# written under the declaration in force when it was recorded. The trace
# (tests/strings/strings_target.c, mode redeclare) declares kind 45
# "Redecl a:U8 b:U16", records (1, 2), declares "Redecl x:U32 y:U32 z:U32",
# records (3, 4, 5), declares the first again, records (6, 7). Checked with
# the real consumers: babeltrace2 reads the CTF trace (one event class per
# declaration), Python's csv the CSV files (Redecl.csv a,b: 1,2 and 6,7;
# Redecl_2.csv x,y,z: 3,4,5), Python's json the JSON, and print's lines.
set -euo pipefail
B=$1
tw=$B/tools/tracewire
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

"$B/tests/tw-strings-target" "$tmp/t.bin" "$tmp/manifest" redeclare
"$tw" print "$tmp/t.bin" > "$tmp/print.txt"
"$tw" export -q "$tmp/t.bin" -f ctf -o "$tmp/ctf"
"$tw" export -q "$tmp/t.bin" -f csv -o "$tmp/csv"
"$tw" export -q "$tmp/t.bin" -f json -o "$tmp/t.json"
babeltrace2 "$tmp/ctf" > "$tmp/bt.txt" 2> "$tmp/bt.err" ||
  fail "babeltrace2 cannot read the CTF trace: $(head -5 "$tmp/bt.err")"

python3 - "$tmp" <<'PY'
import csv, json, re, sys
tmp = sys.argv[1]
want = [{'a': 1, 'b': 2}, {'x': 3, 'y': 4, 'z': 5}, {'a': 6, 'b': 7}]
def fail(msg):
    sys.exit('FAIL: ' + msg)
def fields(s):
    return {k: int(v) for k, v in (kv.split(' = ') for kv in s.split(', '))}
pr = [fields(m) for m in re.findall(r' Redecl: \{ (.*) \}\n', open(tmp + '/print.txt').read())]
if pr != want:
    fail('print: %s' % pr)
bt = [fields(m) for m in re.findall(r'\) Redecl: \{ endpoint = \d+, core = \d+ \}, \{ (.*) \}\n',
                                     open(tmp + '/bt.txt').read())]
if bt != want:
    fail('CTF through babeltrace2: %s, want %s' % (bt, want))
def rows(name):
    r = list(csv.reader(open('%s/csv/%s' % (tmp, name), newline='')))
    return [dict(zip(r[0][5:], map(int, row[5:]))) for row in r[1:]]
if rows('Redecl.csv') != [want[0], want[2]] or rows('Redecl_2.csv') != [want[1]]:
    fail('CSV: Redecl.csv %s, Redecl_2.csv %s' % (rows('Redecl.csv'), rows('Redecl_2.csv')))
js = [e['args'] for e in json.load(open(tmp + '/t.json'))['traceEvents'] if e['name'] == 'Redecl']
if js != want:
    fail('JSON: %s' % js)
print('export_redeclare: print, CTF, CSV and JSON write each event under its own declaration')
PY
echo "export_redeclare: ok"
