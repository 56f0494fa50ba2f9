#!/usr/bin/env bash
# Perfetto, Chrome JSON and CSV exports of a two-endpoint, two-core trace
# (every kind, drops, a 32-bit wrap), each checked against `tracewire print`
# by a reader written here, not by the code that wrote them:
#  - Perfetto: a small protobuf decoder (below) walks Trace/TracePacket/
#    TrackDescriptor/TrackEvent/InternedData by field number and checks
#    tracks (a process per endpoint, core/irq threads, a thread per task,
#    counters), one instant per non-switch event at its exact time, run
#    slices per task switch, balanced slices, flows that end where they
#    started, interned names defined before use.
#  - JSON: parsed by Python's json (and jq when present), same counts.
#  - CSV: every row equals the event print shows, file by file.
set -euo pipefail
B=$1
tw=$B/tools/tracewire
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
if ! command -v python3 >/dev/null; then
  [ "${CI:-}" = true ] && fail "python3 not installed (Debian package python3)"
  echo "SKIP: python3 not installed: install the Debian package 'python3'" >&2
  exit 77
fi

"$tw" synth -o "$tmp/t.bin" --packets 120 --instances 2 --endpoints 2 --drop-every 25 \
  --start-ticks 0xFFFFE000 --ts32 --control --switches 2>/dev/null
"$tw" print -q "$tmp/t.bin" > "$tmp/print.txt"
"$tw" export -q "$tmp/t.bin" -f perfetto -o "$tmp/t.perfetto-trace"
"$tw" export -q "$tmp/t.bin" -f json -o "$tmp/t.json"
"$tw" export -q "$tmp/t.bin" -f csv -o "$tmp/csv"
if command -v jq >/dev/null; then
  jq empty "$tmp/t.json" || fail "jq rejects the JSON export"
elif [ "${CI:-}" = true ]; then
  fail "jq not installed (Debian package jq)"
fi

PYTHONPATH="$(dirname "$0")" python3 - "$tmp/print.txt" "$tmp/t.perfetto-trace" "$tmp/t.json" "$tmp/csv" <<'EOF'
import csv, json, os, re, sys
from collections import Counter, defaultdict

def fail(msg):
    sys.exit('FAIL: ' + msg)

# ---- what print says ------------------------------------------------------
events = []   # (ns, endpoint, core, name, [(field, value)])
def split_fields(body):
    out, cur, q = [], '', False
    for ch in body:
        if ch == '"':
            q = not q
        if ch == ',' and not q:
            out.append(cur.strip()); cur = ''
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return [tuple(x.split(' = ', 1)) for x in out]
for line in open(sys.argv[1]):
    m = re.match(r'\[(\d+)\.(\d{9})\] \(\S+\) ([0-9a-f]{4})/(\d+) (\w+): \{ (.*) \}(, marker = (\w+))?(, time = inferred)?$', line)
    if not m:
        fail('unparsed print line: ' + line)
    ns = int(m.group(1)) * 10**9 + int(m.group(2))
    events.append((ns, int(m.group(3), 16), int(m.group(4)), m.group(5), split_fields(m.group(6)), m.group(8) or '', '1' if m.group(9) else '0'))
switches = [e for e in events if e[3] == 'TaskSwitch']
# A run slice begins where the running task changes (docs/model.md): a
# switch to the task already running is none; after a loss (Drops, or a
# TraceStart after a TraceStop) the running task is unknown, so the next
# switch begins one whatever it names. A task belongs to its endpoint: switched
# in on one core while another core still runs it, it leaves that core's
# running task unknown.
to_task, running, stopped = [], {}, set()
for e in events:
    core = (e[1], e[2])
    if e[3] == 'Drops' or (e[3] == 'TraceStart' and core in stopped):
        running.pop(core, None)
        stopped.discard(core)
    elif e[3] == 'TraceStop':
        stopped.add(core)
    elif e[3] == 'TaskSwitch' and e[4][0][1] not in ('EnterInt', 'LeaveInt'):
        if running.get(core) != e[4][0][1]:
            to_task.append(e)
            for other in [c for c, t in running.items() if c != core and c[0] == core[0] and t == e[4][0][1]]:
                running.pop(other)
        running[core] = e[4][0][1]
others = [e for e in events if e[3] != 'TaskSwitch']
endpoints = {e[1] for e in events}
cores = {(e[1], e[2]) for e in events}

# ---- the protobuf reader: tests/sh/pbwire.py -------------------------------------
from pbwire import fields
def one(fs, n, default=None):
    v = [x for f, x in fs if f == n]
    return v[-1] if v else default
def many(fs, n):
    return [x for f, x in fs if f == n]

data = open(sys.argv[2], 'rb').read()
tracks, names, ann_names = {}, {}, {}
instants, begins, ends, counters, flows_out, flows_in = [], Counter(), Counter(), defaultdict(list), [], []
open_slices = Counter()
for f, pkt in fields(data):
    if f != 1:
        fail('Trace field %d is not a packet' % f)
    p = fields(pkt)
    if one(p, 10) != 1:
        fail('packet not on trusted sequence 1')
    for ind in many(p, 12):
        for kf, e in fields(ind):
            ef = fields(e)
            (names if kf == 2 else ann_names)[one(ef, 1)] = one(ef, 2).decode()
    td = one(p, 60)
    if td is not None:
        d = fields(td)
        u = one(d, 1)
        t = {'parent': one(d, 5), 'name': (one(d, 2) or b'').decode()}
        if one(d, 3) is not None:
            pd = fields(one(d, 3)); t.update(kind='process', pid=one(pd, 1), name=one(pd, 6).decode())
        elif one(d, 4) is not None:
            th = fields(one(d, 4)); t.update(kind='thread', pid=one(th, 1), tid=one(th, 2), name=one(th, 5).decode())
        elif one(d, 8) is not None:
            t.update(kind='counter')
        else:
            fail('track %x of no kind' % u)
        if t['parent'] and t['parent'] not in tracks:
            fail('track %x before its parent' % u)
        tracks[u] = t
    te = one(p, 11)
    if te is not None:
        e = fields(te)
        ts, typ, tu = one(p, 8), one(e, 9), one(e, 11)
        if ts is None or tu not in tracks:
            fail('track event without timestamp or with an undeclared track %s' % tu)
        iid = one(e, 10)
        if iid is not None and iid not in names:
            fail('event name iid %d used before it was interned' % iid)
        name = names.get(iid) if iid is not None else (one(e, 23) or b'').decode()
        if typ == 1:
            begins[tu] += 1; open_slices[tu] += 1
        elif typ == 2:
            ends[tu] += 1; open_slices[tu] -= 1
            if open_slices[tu] < 0:
                fail('slice end without a begin on track %x' % tu)
        elif typ == 3:
            args = {}
            for a in many(e, 4):
                af = fields(a)
                an = ann_names.get(one(af, 1)) if one(af, 1) is not None else one(af, 10).decode()
                if an is None:
                    fail('annotation name iid used before it was interned')
                args[an] = one(af, 6).decode() if one(af, 6) is not None else one(af, 3)
            instants.append((ts, tu, name, args))
            flows_out += many(e, 47); flows_in += many(e, 48)
        elif typ == 4:
            counters[tu].append((ts, one(e, 30)))
        else:
            fail('track event type %s' % typ)

procs = [t for t in tracks.values() if t['kind'] == 'process']
threads = [t for t in tracks.values() if t['kind'] == 'thread']
ctrs = {u: t for u, t in tracks.items() if t['kind'] == 'counter'}
if sorted(t['pid'] for t in procs) != sorted(endpoints):
    fail('processes %s, endpoints %s' % ([t['pid'] for t in procs], sorted(endpoints)))
core_tracks = {u for u, t in tracks.items() if t['kind'] == 'thread' and re.fullmatch(r'cpu\d+', t['name'])}
if len(core_tracks) != len(cores):
    fail('%d core tracks for %d cores' % (len(core_tracks), len(cores)))
task_names = {t['name'] for t in threads} - {t['name'] for u, t in tracks.items() if u in core_tracks} 
for want in ('idle', 'sensor_task', 'control_loop'):
    if want not in task_names:
        fail('no thread track for task %s (have %s)' % (want, sorted(task_names)))
if any(open_slices.values()):
    fail('slices left open: %s' % {hex(k): v for k, v in open_slices.items() if v})
core_begins = sum(begins[u] for u in core_tracks)
if core_begins != len(to_task):
    fail('%d run slices on cores, print has %d switches to a task' % (core_begins, len(to_task)))
if sorted(i[0] for i in instants) != sorted(e[0] for e in others):
    fail('instant timestamps differ from print (%d instants, %d non-switch events)' % (len(instants), len(others)))
if Counter(i[2].split()[0] for i in instants) != Counter(e[3] for e in others):
    fail('instant names differ from print')
marked = [e for e in others if e[5]]
if sum(1 for i in instants if 'marker' in i[3]) != len(marked):
    fail('marker args: %d, print shows %d markers' % (sum(1 for i in instants if 'marker' in i[3]), len(marked)))
if not flows_out or not flows_in or not set(flows_in) <= set(flows_out):
    fail('flows: %d started, %d ended, ends without a start: %s' % (len(flows_out), len(flows_in), set(flows_in) - set(flows_out)))
cn = {t['name'] for t in ctrs.values()}
for want in ['ready tasks'] + ['cpu%d load %%' % c for c in sorted({c for _, c in cores})]:
    if want not in cn:
        fail('no counter track %r (have %s)' % (want, sorted(cn)))
if not any(n.startswith('sem ') for n in cn):
    fail('no semaphore counter track')
for u, vals in counters.items():
    if tracks[u]['name'].startswith('cpu') and not all(0 <= v <= 100 for _, v in vals):
        fail('CPU load outside 0..100')
print('perfetto: %d tracks, %d instants, %d run slices, %d flows, %d counter values' % (
    len(tracks), len(instants), core_begins, len(flows_in), sum(len(v) for v in counters.values())))

# ---- JSON ------------------------------------------------------------------------
j = json.load(open(sys.argv[3]))
ev = j['traceEvents']
inst = [e for e in ev if e['ph'] == 'i']
if sorted(round(e['ts'] * 1000) for e in inst) != sorted(e[0] for e in others):
    fail('JSON instants differ from print')
depth = Counter()
for e in ev:
    if e['ph'] in 'BE':
        depth[(e['pid'], e['tid'])] += 1 if e['ph'] == 'B' else -1
        if depth[(e['pid'], e['tid'])] < 0:
            fail('JSON: E without B')
if any(depth.values()):
    fail('JSON: unbalanced B/E')
lost = [e for e in ev if e['ph'] == 'B' and (' events lost (' in e['name'] or e['name'] == 'not recorded (stopped)')]
if sum(1 for e in ev if e['ph'] == 'B' and e['name'] != 'running' and e['name'] != 'interrupt') - len(lost) != len(to_task):
    fail('JSON run slices differ from print')
if len(lost) < sum(1 for e in events if e[3] == 'Drops'):
    fail('JSON: %d lost-events slices for %d Drops records' % (len(lost), sum(1 for e in events if e[3] == 'Drops')))
if not any(e['ph'] == 'C' for e in ev) or not any(e['ph'] == 'f' for e in ev):
    fail('JSON: no counters or no flows')
print('json: %d trace events' % len(ev))

# ---- CSV -------------------------------------------------------------------------
rows = 0
by_kind = defaultdict(list)
for e in events:
    by_kind[e[3]].append(e)
files = sorted(os.listdir(sys.argv[4]))
if sorted(f[:-4] for f in files) != sorted(by_kind):
    fail('CSV files %s, print kinds %s' % (files, sorted(by_kind)))
def norm(v):
    m = re.fullmatch(r'(\d+) ".*"', v)
    if m:
        return m.group(1)
    return v[1:-1] if v.startswith('"') else v
for kind, evs in by_kind.items():
    r = list(csv.reader(open(os.path.join(sys.argv[4], kind + '.csv'), newline='')))
    hdr = r[0]
    want_hdr = ['time_ns', 'endpoint', 'core', 'seq', 'time_inferred'] + [f for f, _ in evs[0][4]]
    if hdr[:len(want_hdr)] != want_hdr:
        fail('%s.csv header %s, want %s' % (kind, hdr, want_hdr))
    got = sorted((int(x[0]), int(x[1]), int(x[2]), x[4], tuple(x[5:5 + len(evs[0][4])])) for x in r[1:])
    want = sorted((e[0], e[1], e[2], e[6], tuple(norm(v) for _, v in e[4])) for e in evs)
    if got != want:
        for a, b in zip(got, want):
            if a != b:
                fail('%s.csv row %s, print %s' % (kind, a, b))
        fail('%s.csv has %d rows, print %d' % (kind, len(got), len(want)))
    rows += len(got)
print('csv: %d files, %d rows' % (len(files), rows))
EOF
# Refusals: exit status and a message naming what is wrong.
expect() { # status, message pattern, command...
  local want=$1 pat=$2 rc=0
  shift 2
  "$@" 2>"$tmp/err" >/dev/null || rc=$?
  [ "$rc" -eq "$want" ] || fail "$*: exit $rc, want $want"
  grep -q -- "$pat" "$tmp/err" || fail "$*: no message matching '$pat': $(cat "$tmp/err")"
}
expect 2 "unknown format 'pdf'" "$tw" export "$tmp/t.bin" -f pdf -o "$tmp/x"
# standard input is told by its content and read from a temporary copy
# (two passes): the same output as from the file
"$tw" export - -f json -o "$tmp/stdin.json" < "$tmp/t.bin" || fail "export from stdin failed"
"$tw" export "$tmp/t.bin" -f json -o "$tmp/file.json" || fail "export from the file failed"
cmp -s "$tmp/stdin.json" "$tmp/file.json" || fail "export from stdin differs from the file's"
expect 1 "$tmp/no/such/x.json: cannot create" "$tw" export "$tmp/t.bin" -f json -o "$tmp/no/such/x.json"
expect 1 "$tmp/no/such/ctf: cannot create directory" "$tw" export "$tmp/t.bin" -f ctf -o "$tmp/no/such/ctf"
if [ -w /dev/full ]; then
  expect 1 "/dev/full: write failed" "$tw" export "$tmp/t.bin" -f perfetto -o /dev/full
fi
expect 2 "TRACE.export_csv.out (the output path) is required" \
  "$tw" run "$tmp/t.bin" --plugin "$B/plugins/libtw_export_csv.so"
# The .so plugins write what the built-in exporters write.
for f in perfetto json; do
  "$tw" run -q "$tmp/t.bin" --plugin "$B/plugins/libtw_export_$f.so@x" --param TRACE.x.out="$tmp/so.$f"
done
cmp "$tmp/so.perfetto" "$tmp/t.perfetto-trace" || fail "perfetto plugin output differs"
cmp "$tmp/so.json" "$tmp/t.json" || fail "json plugin output differs"
echo "export_formats: ok"
