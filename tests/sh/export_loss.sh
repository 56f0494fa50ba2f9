#!/usr/bin/env bash
# Issue 15's picture after loss, on its own reproducer: a two-endpoint,
# two-core trace with ring drops every 50 events and recording restarts.
# The Chrome JSON export (the Perfetto one draws the same timeline) must:
#  - never nest interrupts deeper than the trace does (a frame whose
#    LeaveInt was dropped ends at the gap instead of staying open);
#  - have CPU-load counters that agree with the slices: per core, the
#    integral of "cpuN load %" equals the time covered by interrupt
#    slices or run slices of tasks that are not idle (to 1 %);
#  - show every gap as a slice on a "lost events" track;
#  - keep semaphore counters and "ready tasks" at or above 0, with one
#    sample per counter and timestamp.
set -euo pipefail
B=$1
tw=$B/tools/tracewire
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if ! command -v python3 >/dev/null; then
  [ "${CI:-}" = true ] && { echo "FAIL: python3 not installed (Debian package python3)" >&2; exit 1; }
  echo "SKIP: python3 not installed: install the Debian package 'python3'" >&2
  exit 77
fi
"$tw" synth --packets 400 --instances 2 --endpoints 2 --switches --drop-every 50 --control \
  --seed 3 -o "$tmp/t.raw" 2>/dev/null
"$tw" print -q "$tmp/t.raw" > "$tmp/print.txt"
"$tw" export -q "$tmp/t.raw" -f json -o "$tmp/t.json"
python3 - "$tmp/print.txt" "$tmp/t.json" <<'EOF'
import json, re, sys
from collections import Counter, defaultdict

def fail(msg):
    sys.exit('export_loss: FAIL: ' + msg)

# the deepest nesting the trace itself has, frames closed at each gap
deepest, depth, stopped, drops = 0, Counter(), set(), 0
for line in open(sys.argv[1]):
    m = re.match(r'\[\S+\] \(\S+\) ([0-9a-f]{4})/(\d+) (\w+): \{ (.*) \}', line)
    if not m:
        continue
    core, kind, body = (m.group(1), m.group(2)), m.group(3), m.group(4)
    if kind == 'Drops' or (kind == 'TraceStart' and core in stopped):
        depth[core] = 0
        stopped.discard(core)
        drops += kind == 'Drops'
    elif kind == 'TraceStop':
        stopped.add(core)
    elif kind == 'TaskSwitch' and 'EnterInt' in body:
        depth[core] += 1
        deepest = max(deepest, depth[core])
    elif kind == 'TaskSwitch' and 'LeaveInt' in body and depth[core]:
        depth[core] -= 1

ev = json.load(open(sys.argv[2]))['traceEvents']
names = {(e['pid'], e['tid']): e['args']['name'] for e in ev
         if e['ph'] == 'M' and e['name'] == 'thread_name'}
end = max(e['ts'] for e in ev if 'ts' in e)
open_b = defaultdict(list)
slices = defaultdict(list)  # track name key -> [(t0, t1, name)]
for e in ev:
    if e['ph'] == 'B':
        open_b[(e['pid'], e['tid'])].append((e['ts'], e['name']))
    elif e['ph'] == 'E':
        t0, n = open_b[(e['pid'], e['tid'])].pop()
        slices[(e['pid'], e['tid'])].append((t0, e['ts'], n))
    if e['ph'] == 'B' and names.get((e['pid'], e['tid']), '').endswith(' irq'):
        k = (e['pid'], e['tid'])
        if len(open_b[k]) > deepest:
            fail('interrupts nested %d deep on %s; the trace nests at most %d' %
                 (len(open_b[k]), names[k], deepest))

lost = sum(len(v) for k, v in slices.items() if names.get(k, '').endswith(' lost events'))
if lost < drops:
    fail('%d lost-events slices for %d Drops records' % (lost, drops))

def union(iv):
    tot, cur = 0.0, None
    for a, b in sorted(iv):
        if cur and a <= cur[1]:
            cur[1] = max(cur[1], b)
        else:
            if cur:
                tot += cur[1] - cur[0]
            cur = [a, b]
    return tot + (cur[1] - cur[0] if cur else 0)

samples = defaultdict(list)
for e in ev:
    if e['ph'] == 'C':
        samples[(e['pid'], e['name'])].append((e['ts'], e['args']['value']))
for (pid, name), vals in samples.items():
    if Counter(t for t, _ in vals).most_common(1)[0][1] > 1:
        fail('%s of pid %d: two samples at one timestamp' % (name, pid))
    if (name == 'ready tasks' or name.startswith('sem ')) and min(v for _, v in vals) < 0:
        fail('%s of pid %d goes to %d' % (name, pid, min(v for _, v in vals)))

checked = 0
for (pid, tid), cname in names.items():
    m = re.fullmatch(r'cpu(\d+)', cname)
    if not m:
        continue
    busy = [(a, b) for a, b, n in slices[(pid, tid)] if 'idle' not in n.lower()]
    busy += [(a, b) for a, b, _ in slices.get((pid, tid | 0x4000), [])]
    vals = samples[(pid, cname + ' load %')]
    # the counter covers whole 1 ms windows from the core's first event
    t_first, t_last = vals[0][0], vals[-1][0] + 1000.0
    clip = [(max(a, t_first), min(b, t_last)) for a, b in busy if b > t_first and a < t_last]
    integral = sum(v / 100.0 * ((vals[i + 1][0] if i + 1 < len(vals) else t_last) - t)
                   for i, (t, v) in enumerate(vals))
    covered = union(clip)
    if abs(integral - covered) > 0.01 * (t_last - t_first):
        fail('%s of pid %d: load integral %.0f us, busy slices %.0f us' % (cname, pid, integral, covered))
    checked += 1
if checked != 4:
    fail('%d cores checked, want 4' % checked)
print('export_loss: nesting <= %d, %d lost-events slices, load agrees with slices on %d cores'
      % (deepest, lost, checked))
EOF
