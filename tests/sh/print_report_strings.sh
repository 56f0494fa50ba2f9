#!/usr/bin/env bash
# Hostile target strings in `print` and in the HTML report. The trace is
# tests/strings/strings_target.c's (the one tests/sh/export_strings.sh
# checks the exporters with): task, mutex and custom kind names with
# newlines, tabs, quotes, `\`, non-ASCII, invalid UTF-8, U+2028, a
# 100-byte name, `</script>`, `<!--`, `<img onerror=...>`, `<script>` and
# `&`. Checked:
#  - print: every line is printable ASCII (a name cannot split or corrupt
#    a line), and each task/mutex name, custom kind name and field name is
#    there whole, escaped as docs/cli.md says (the rule re-implemented
#    below); info and stats, which list names too, escape them the same way;
#  - analyze and summary: valid UTF-8 with no control characters (their
#    names keep UTF-8, the rest is \xNN);
#  - report: the file is valid UTF-8; every <script> data block ends at
#    its own `</script>` (no injected one, no `<!--`) and parses as JSON
#    (base64 for the binary ones); the lanes carry each name whole, as
#    Python's decode('utf-8', 'replace') of the bytes sent;
#  - in headless Chromium (when installed, as tests/sh/report_chromium.sh
#    drives it): the page's script finished without errors, no injected
#    handler or script ran (they would set body[data-pwned]), and the names
#    are in the page as text.
# Args: build dir, source dir.
set -euo pipefail
B=$1
tw=$B/tools/tracewire
tgt=$B/tests/tw-strings-target
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! command -v python3 >/dev/null; then
  [ "${CI:-}" = true ] && fail "python3 not installed (Debian package python3)"
  echo "SKIP: python3 not installed: install the Debian package 'python3'" >&2
  exit 77
fi
[ -x "$tgt" ] || fail "$tgt not built"

"$tgt" "$tmp/t.bin" "$tmp/manifest"
"$tw" print "$tmp/t.bin" > "$tmp/print.txt" || fail "tracewire print: exit $?"
"$tw" info "$tmp/t.bin" > "$tmp/info.txt" || fail "tracewire info: exit $?"
"$tw" stats "$tmp/t.bin" > "$tmp/stats.txt" || fail "tracewire stats: exit $?"
"$tw" analyze "$tmp/t.bin" > "$tmp/analyze.txt" || fail "tracewire analyze: exit $?"
"$tw" summary -q "$tmp/t.bin" > "$tmp/summary.txt" || fail "tracewire summary: exit $?"
"$tw" report "$tmp/t.bin" -o "$tmp/r.html" 2> "$tmp/report.err" ||
  { cat "$tmp/report.err" >&2; fail "tracewire report"; }

python3 - "$tmp" <<'EOF'
import base64, json, re, sys
tmp = sys.argv[1]
def fail(msg):
    sys.exit('FAIL: ' + msg)
unhex = lambda h: b'' if h == '-' else bytes.fromhex(h)
kinds, objs = {}, []
for line in open(tmp + '/manifest'):
    w = line.split()
    if w[0] == 'kind':
        kinds[int(w[1])] = [unhex(x) for x in w[2:]]
    elif w[0] in ('task', 'mutex'):
        objs.append((w[0], int(w[1]), unhex(w[2])))

# ---- analyze, summary: text for a terminal (docs/cli.md) ----------------------
# UTF-8 kept, but no control byte (C0 but newline and tab, DEL, C1) and no
# invalid UTF-8: a name cannot move the cursor or recolour the terminal
for name in ('analyze', 'summary'):
    b = open(tmp + '/' + name + '.txt', 'rb').read()
    try:
        t = b.decode('utf-8')
    except UnicodeDecodeError as e:
        fail('%s: invalid UTF-8 at byte %d' % (name, e.start))
    bad = [c for c in t if (ord(c) < 0x20 and c not in '\n\t') or 0x7F <= ord(c) < 0xA0]
    if bad:
        fail('%s: control characters %r' % (name, sorted(set(bad))))
    if '\\xff' not in t:
        fail('%s: the task with invalid UTF-8 in its name is not there, escaped' % name)

# ---- print -------------------------------------------------------------------
def esc(b):  # docs/cli.md: `"` and `\` backslashed, bytes outside printable ASCII \xNN
    return ''.join('\\' + chr(c) if c in b'"\\' else chr(c) if 0x20 <= c < 0x7F
                   else '\\x%02x' % c for c in b)
raw = open(tmp + '/print.txt', 'rb').read()
lines = raw.split(b'\n')
if lines.pop() != b'':
    fail('print: output does not end with a newline')
for i, l in enumerate(lines):
    if not l.startswith(b'[') or any(c < 0x20 or c >= 0x7F for c in l):
        fail('print: line %d is not one printable ASCII event line: %r' % (i + 1, l[:120]))
text = raw.decode('ascii')
for kind, n, name in objs:
    if '%s = %d "%s"' % ('task' if kind == 'task' else 'mutex', n, esc(name)) not in text:
        fail('print: %s %d not named whole as "%s"' % (kind, n, esc(name)))
for kid, (name, *fields) in kinds.items():
    if not fields or kid in (42, 43):
        continue
    want = ' %s: { %s }' % (esc(name), ', '.join('%s = ' % esc(f) for f in fields))
    got = re.sub(r' = [-0-9.a-z]+', ' = ', text)
    if want not in got:
        fail('print: custom kind %d not printed as %r' % (kid, want))

# ---- info and stats: the names they list, escaped the same way -----------------
for cmd in ('info', 'stats'):
    out = open('%s/%s.txt' % (tmp, cmd), 'rb').read()
    for i, l in enumerate(out.split(b'\n')):
        if any(c < 0x20 or c >= 0x7F for c in l):
            fail('%s: line %d is not printable ASCII: %r' % (cmd, i + 1, l[:120]))
    for kind, n, name in objs:
        if kind == 'task' and ('task %d "%s"' % (n, esc(name))) not in out.decode():
            fail('%s: task %d not listed as "%s"' % (cmd, n, esc(name)))
info = open(tmp + '/info.txt').read()
for kid, (name, *fields) in kinds.items():
    if ('id %d %s' % (kid, esc(name))) not in info:
        fail('info: custom kind %d not listed as %s' % (kid, esc(name)))

# ---- report ------------------------------------------------------------------------
doc = open(tmp + '/r.html', 'rb').read()
try:
    html = doc.decode('utf-8')
except UnicodeDecodeError as e:
    fail('report: not valid UTF-8: %s' % e)
blocks = re.findall(r'<script([^>]*)>(.*?)</script', html, re.S | re.I)
opens = len(re.findall(r'<script', html, re.I))
if opens != len(blocks) or len(re.findall(r'</script', html, re.I)) != opens:
    fail('report: %d <script> openings, %d blocks, %d closings' %
         (opens, len(blocks), len(re.findall(r'</script', html, re.I))))
meta = None
for attrs, body in blocks:
    if 'application/json' in attrs:
        m = re.search(r'<!--|<script|</', body, re.I)
        if m:
            fail('report: a JSON block holds %r: %r' % (m.group(0), body[m.start() - 40:][:80]))
        obj = json.loads(body)
        if 'id="tw-meta"' in attrs:
            meta = obj
    elif 'application/octet-stream' in attrs:
        base64.b64decode(re.sub(r'\s+', '', body), validate=True)
if meta is None:
    fail('report: no tw-meta block')
lanes = {(l['kind'], l['num']): l['name'] for l in meta['lanes']}
for kind, n, name in objs:
    want = name.decode('utf-8', 'replace')
    if lanes.get((kind, n)) != want:
        fail('report: %s %d lane named %r, want %r' % (kind, n, lanes.get((kind, n)), want))
print('print_report_strings: print and report keep %d names whole and inert' % len(objs))
EOF

chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
  [ "${CI:-}" = true ] && fail "chromium not installed (Debian package: chromium)"
  echo "SKIP (browser part): *** chromium not found: install the Debian package 'chromium' ***" >&2
  exit 0
fi
flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
       --disable-component-update --no-first-run --disable-sync --user-data-dir="$tmp/profile"
       --virtual-time-budget=10000 --window-size=1400,1300)
timeout 120 "$chrome" "${flags[@]}" --dump-dom "file://$tmp/r.html" > "$tmp/dom" 2> "$tmp/chrome.err" ||
  { tail -5 "$tmp/chrome.err" >&2; fail "chromium --dump-dom failed"; }
python3 - "$tmp/dom" <<'EOF'
import re, sys
dom = open(sys.argv[1], encoding='utf-8').read()
def fail(msg):
    sys.exit('FAIL: report in chromium: ' + msg)
body = re.search(r'<body[^>]*>', dom)
if 'data-tw-ready="1"' not in dom:
    fail("the page's script did not finish")
if body and 'data-tw-errors' in body.group(0):
    m = re.search(r'<pre id="tw-errors"[^>]*>(.*?)</pre>', dom, re.S)
    fail('script errors: %s' % (m.group(1) if m else '?'))
if body and 'data-pwned' in body.group(0):
    fail('a script injected through a name ran: %s' % body.group(0))
tables = dom[dom.find('id="tables"'):]
for want in ('&lt;/script&gt;&lt;img src=x onerror="document.body.dataset.pwned=1"&gt;&amp;amp;',
             '&lt;/SCRIPT&gt;&lt;script&gt;document.body.dataset.pwned=3&lt;/script&gt;&lt;!--&amp;lt;'):
    if want not in tables:
        fail('name not shown as text in the tables: %s' % want)
print('print_report_strings: chromium ran no injected script; names shown as text')
EOF
echo "print_report_strings: ok"
