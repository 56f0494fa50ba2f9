#!/usr/bin/env bash
# The Perfetto export draws the scheduler as Perfetto draws Linux's
# (docs/exporters.md, "Perfetto"), checked on the demo (fixed seed: the
# planted inversion, the adc interrupt releasing the sampler, the storm's
# ring drops) after protoc and Perfetto's rules (tests/perfetto_check.py):
#  - the sched data switches each task in as often as `tracewire analyze`
#    counts;
#  - a task blocked on an object names it (sched_blocked_reason: "mutex 1
#    res" for the planted inversion, the semaphores the pipeline waits on);
#  - interrupts are per-CPU irq slices named by their irq; a task released
#    from an interrupt is woken in interrupt context (common flags);
#  - after every gap of lost events, no task is drawn running or runnable
#    unless a switch or wake-up at the gap says so: thread states rebuilt
#    as trace_processor's thread-state tracker builds them;
#  - the gaps are slices on the "cpu0 lost events" track, one per DROPS.
# Args: build dir, source dir.
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "perfetto_sched: FAIL: $*" >&2; exit 1; }
PROTO=${TW_PERFETTO_PROTO:-}
if ! command -v protoc >/dev/null || [ ! -f "$PROTO" ]; then
  [ "${CI:-}" = true ] && fail "protoc or perfetto_trace.proto missing (Debian package protobuf-compiler; PERFETTO_PROTO='$PROTO')"
  echo "SKIP: protoc (Debian package 'protobuf-compiler') or perfetto_trace.proto (cmake -DPERFETTO_PROTO=...) missing" >&2
  exit 77
fi
[ -x "$build/tools/tracewire" ] || fail "no tracewire in $build"

SCENARIO=demo SEED=1 OUT=$tmp/demo bash "$src/scripts/run-demo.sh" "$build" > "$tmp/run.txt" 2>&1 ||
  { cat "$tmp/run.txt" >&2; fail "run-demo.sh failed"; }
"$build/tools/tracewire" print -q "$tmp/demo/trace.twt" > "$tmp/print.txt"

python3 - "$src/tests" "$PROTO" "$tmp/demo/trace.perfetto-trace" "$build/tools/tracewire" \
  "$tmp/demo/trace.twt" "$tmp/print.txt" <<'EOF'
import sys
sys.path.insert(0, sys.argv[1])
import perfetto_check as pc

def fail(msg):
    sys.exit('perfetto_sched: FAIL: ' + msg)

proto, path, tw, trace, printed = sys.argv[2:7]
try:
    s = pc.check(proto, path, events=True)
    n = pc.compare_analyze(s, tw, trace)
except pc.Fail as e:
    fail(str(e))
drops = sum(1 for l in open(printed) if ' Drops: ' in l)

# what a blocked task waits on
for want in ('mutex 1 res', 'sem 0 adc_ready', 'msem 0 outputs', 'rsem 0 buffers'):
    if not s['blocked'].get(want):
        fail('no blocked reason %r (have %s)' % (want, dict(s['blocked'])))
# interrupts, and wake-ups from them
for irq in ('adc', 'SysTick', 'uart', 'eth'):
    if not s['irqs'].get(irq):
        fail('no irq slices for %s (have %s)' % (irq, dict(s['irqs'])))
if not s['waking_irq']:
    fail('no task woken from interrupt context')
if s['lost_slices'] != drops:
    fail('%d lost-events slices, %d Drops records' % (s['lost_slices'], drops))

# after a gap nothing is running or runnable that no event says is
states = pc.thread_states(s['events'])
gaps = sorted(e[0] for e in s['events'] if e[1] == 'gap')
if not gaps or not s['states'].get('TASK_STATE_UNKNOWN'):
    fail('the storm lost events, but no gap or no task state made unknown')
for g in gaps:
    now, since = {}, {}
    for ts, tid, st in states:
        if ts > g + 1:
            break
        now[tid], since[tid] = st, ts
    for tid, st in now.items():
        if st in ('Running', 'R', 'R+') and since[tid] < g:
            fail('at the gap at %d ns task %d is still drawn %s (since %d ns)' % (g, tid, st, since[tid]))
    if not any(st == 'Unknown' for st in now.values()):
        fail('after the gap at %d ns no task is unknown' % g)
print('perfetto_sched: demo: %d switches as analyze counts, blocked reasons %d, irqs %d, '
      '%d gaps with every task unknown after them' % (
          n, sum(s['blocked'].values()), sum(s['irqs'].values()), len(gaps)))
EOF
