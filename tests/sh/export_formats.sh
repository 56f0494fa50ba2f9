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

# Perfetto's protos (PERFETTO_PROTO at configure time; `make` passes
# ../shared/third_party/perfetto/perfetto_trace.proto) and protoc.
PROTO=${TW_PERFETTO_PROTO:-}
if ! command -v protoc >/dev/null || [ -z "$PROTO" ] || [ ! -f "$PROTO" ]; then
  [ "${CI:-}" = true ] && fail "protoc or perfetto_trace.proto missing (Debian package protobuf-compiler; PERFETTO_PROTO='$PROTO')"
  echo "SKIP: protoc (Debian package 'protobuf-compiler') or perfetto_trace.proto (cmake -DPERFETTO_PROTO=...) missing" >&2
  exit 77
fi
PYTHONPATH="$(dirname "$0")" python3 - "$tmp/print.txt" "$tmp/t.perfetto-trace" "$tmp/t.json" "$tmp/csv" \
  "$(dirname "$0")/../perfetto_check.py" "$tmp/sum.json" "$PROTO" <<'EOF'
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

# ---- Perfetto: protoc with the real protos, then Perfetto's rules ------------------
# (tests/perfetto_check.py; the summary is what it saw)
import subprocess
chk = subprocess.run([sys.executable, sys.argv[5], '--summary', sys.argv[6], sys.argv[7], sys.argv[2]],
                     capture_output=True, text=True)
if chk.returncode != 0:
    fail('perfetto_check: ' + chk.stdout + chk.stderr)
s = json.load(open(sys.argv[6]))[sys.argv[2]]
kinds = Counter(k for k, _ in s['tracks'])
if kinds['process'] != len(endpoints):
    fail('%d processes for %d endpoints' % (kinds['process'], len(endpoints)))
task_names = set(s['threads'].values())
for want in ('idle', 'sensor_task', 'control_loop'):
    if want not in task_names:
        fail('no thread for task %s (have %s)' % (want, sorted(task_names)))
if s['cpus'] != len(cores):
    fail('%d CPUs for %d cores' % (s['cpus'], len(cores)))
nsw = sum(s['switches'].values())
if nsw != len(to_task):
    fail('%d switches to a task in the sched data, print has %d' % (nsw, len(to_task)))
if sorted(s['instant_ts']) != sorted(e[0] for e in others):
    fail('instant timestamps differ from print (%d instants, %d non-switch events)' % (len(s['instant_ts']), len(others)))
if Counter({}) + Counter({k.split()[0]: 0 for k in s['instants']}) is None:
    pass
got_kinds = Counter()
for k, n in s['instants'].items():
    got_kinds[k.split()[0]] += n
if got_kinds != Counter(e[3] for e in others):
    fail('instant names differ from print: %s' % (got_kinds - Counter(e[3] for e in others)))
if not s['flows']:
    fail('no flow from a give to the task it releases')
if s['lost_slices'] < sum(1 for e in events if e[3] == 'Drops'):
    fail('%d lost-events slices for %d Drops records' % (s['lost_slices'], sum(1 for e in events if e[3] == 'Drops')))
cn = {n for k, n in s['tracks'] if k == 'counter'}
for want in ['ready tasks'] + ['cpu%d load %%' % c for c in range(len(cores))]:
    if want not in cn:
        fail('no counter track %r (have %s)' % (want, sorted(cn)))
if not any(n.startswith('sem ') for n in cn):
    fail('no semaphore counter track')
if not s['irqs'] or not s['wakings'] or not s['blocked']:
    fail('no interrupts, wake-ups or blocked reasons in the sched data')
print('perfetto: %d tracks, %d instants, %d switches, %d wake-ups, %d flows' % (
    len(s['tracks']), len(s['instant_ts']), nsw, sum(s['wakings'].values()), s['flows']))

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
# Flows bind as viewers bind them: a start to the slice open on its thread
# at its time; an end (no "bp") to the next slice that begins on its thread.
spans = defaultdict(list)
stack = defaultdict(list)
for e in (e for e in ev if e['ph'] in 'BE'):  # in file order: they balance so
    k = (e['pid'], e['tid'])
    if e['ph'] == 'B':
        stack[k].append(e['ts'])
    else:
        spans[k].append((stack[k].pop(), e['ts']))
for e in ev:
    if e['ph'] == 's' and not any(b <= e['ts'] <= en for b, en in spans[(e['pid'], e['tid'])]):
        fail('JSON flow %s starts where no slice is open (%s)' % (e['id'], e))
    if e['ph'] == 'f':
        if 'bp' in e:
            fail('JSON flow end binds to an enclosing slice: %s' % e)
        if not any(b >= e['ts'] for b, en in spans[(e['pid'], e['tid'])]):
            fail('JSON flow %s ends with no slice after it on its thread' % e['id'])
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
