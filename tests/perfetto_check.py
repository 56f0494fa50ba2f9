#!/usr/bin/env python3
"""Validate a Perfetto trace file against the real protos and Perfetto's rules.

    perfetto_check.py [--summary OUT.json] [--analyze TRACEWIRE TRACE] PROTO FILE...

Each FILE is decoded by protoc (Debian protobuf-compiler) as
perfetto.protos.Trace with PROTO (perfetto_trace.proto, the merged trace
protos). Any decoding error or unknown field fails. The decoded text is
then checked against the rules Perfetto documents for writers and the
ones trace_processor relies on to build its tables:

  sequences   every packet has a trusted_packet_sequence_id; the first
              packet of a sequence clears its incremental state
              (SEQ_INCREMENTAL_STATE_CLEARED); after trace_packet_defaults
              every packet of the sequence says SEQ_NEEDS_INCREMENTAL_STATE,
              and so does every packet that uses interned data
  interning   an iid is defined (InternedData of that packet or an earlier
              one of the sequence) before it is used, and never redefined
              to another string
  clocks      a timestamp on a sequence-scoped clock (64..127) needs a
              ClockSnapshot for that clock on the sequence first; deltas on
              an incremental clock are applied in order (they cannot go
              back: unsigned); absolute times are computed for all
  ftrace      a bundle has a cpu below 1024; compact-sched arrays have one
              entry per event (switch arrays alike, waking arrays alike,
              common flags absent or alike), comm indexes inside the
              bundle's intern table; per CPU, switches in file order do not
              go back in time; the first switch on a CPU is a full
              sched_switch (a first compact one has no previous switch to
              give its prev_pid) and every full switch's prev_pid is the
              previous switch's next_pid: one chain per CPU
  processes   every tid the scheduler data names (switches, wake-ups,
              blocked reasons, task states) is a thread of one process
              (ProcessTree or thread TrackDescriptor), the same one each
              time; pids are declared as processes
  tracks      a track event names a declared track (descriptor earlier in
              the file); slices balance per track and do not end before
              they begin; counters only on counter tracks; a terminating
              flow id was started before
  strings     every string is valid UTF-8

With --summary, writes what a test compares: switches per (cpu, tid),
thread names, wake-ups (those from an interrupt, and how many tasks such a
wake-up leaves not running again before the end), blocked reasons,
task-state marks, interrupts, instants, counters and track names.
With --analyze, runs `TRACEWIRE analyze --json TRACE` and fails unless the
sched data switches each task in as often as analyze counts ("switches in",
summed over cores, by task name). (Not per core: analyze's context
switches leave out a switch back to the task that ran before a gap, which
the sched data has, the CPU having gone idle at the gap.)
Exit status 0 when every file passes, 1 otherwise (each failure printed).
"""
import json
import re
import subprocess
import sys
from collections import Counter, defaultdict

MAX_CPUS = 1024


class Fail(Exception):
    pass


# ---- protoc's text format -------------------------------------------------------

TOKEN = re.compile(r'\s*(?:([A-Za-z_][A-Za-z0-9_]*|\d+)\s*(\{|:)\s*(.*?)\s*$|(\}))')
ESC = {'n': 10, 't': 9, 'r': 13, '"': 34, "'": 39, '\\': 92, 'a': 7, 'b': 8, 'f': 12, 'v': 11}


def unquote(s):
    """The bytes of a protoc text-format string literal."""
    if len(s) < 2 or s[0] != '"' or s[-1] != '"':
        raise Fail('not a string literal: %r' % s)
    body, out, i = s[1:-1], bytearray(), 0
    while i < len(body):
        c = body[i]
        if c != '\\':
            out += c.encode('utf-8')
            i += 1
            continue
        n = body[i + 1]
        if n in '01234567':
            j = i + 1
            while j < len(body) and j < i + 4 and body[j] in '01234567':
                j += 1
            out.append(int(body[i + 1:j], 8))
            i = j
        elif n == 'x':
            j = i + 2
            while j < len(body) and j < i + 4 and body[j] in '0123456789abcdefABCDEF':
                j += 1
            out.append(int(body[i + 2:j], 16))
            i = j
        else:
            out.append(ESC[n])
            i += 2
    return bytes(out)


def parse_text(text):
    """protoc's output as nested lists of (name, value); a message is a list."""
    root, stack = [], []
    cur = root
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        m = TOKEN.match(line)
        if not m:
            raise Fail('line %d: cannot read %r' % (lineno, line))
        if m.group(4):
            cur = stack.pop()
            continue
        name, kind, rest = m.group(1), m.group(2), m.group(3)
        if name.isdigit():
            raise Fail('line %d: unknown field %s (not in the protos): %r' % (lineno, name, line.strip()))
        if kind == '{':
            msg = []
            cur.append((name, msg))
            stack.append(cur)
            cur = msg
        else:
            if rest.startswith('"'):
                v = unquote(rest)
            elif re.fullmatch(r'-?\d+', rest):
                v = int(rest)
            elif re.fullmatch(r'-?[\d.]+(e[-+]?\d+)?|-?inf|nan', rest):
                v = float(rest)
            elif rest in ('true', 'false'):
                v = rest == 'true'
            else:
                v = rest  # an enum constant
            cur.append((name, v))
    if stack:
        raise Fail('unbalanced braces in protoc output')
    return root


def one(msg, name, default=None):
    vals = [v for n, v in msg if n == name]
    return vals[-1] if vals else default


def many(msg, name):
    return [v for n, v in msg if n == name]


def text(b):
    try:
        return b.decode('utf-8')
    except UnicodeDecodeError as e:
        raise Fail('string is not valid UTF-8: %r (%s)' % (b[:80], e))


def walk_strings(msg, where='packet'):
    for n, v in msg:
        if isinstance(v, bytes):
            text(v)
        elif isinstance(v, list):
            walk_strings(v, where + '.' + n)


def decode(proto, path):
    import os
    r = subprocess.run(['protoc', '-I' + os.path.dirname(os.path.abspath(proto)),
                        '--decode=perfetto.protos.Trace', os.path.basename(proto)],
                       stdin=open(path, 'rb'), capture_output=True)
    if r.returncode != 0 or r.stderr.strip():
        raise Fail('protoc cannot decode it: %s' % r.stderr.decode(errors='replace').strip())
    return parse_text(r.stdout.decode('utf-8', errors='surrogateescape'))


# ---- the rules ----------------------------------------------------------------------

INTERN_KINDS = {'event_categories': 'cat', 'event_names': 'name',
                'debug_annotation_names': 'dname', 'kernel_symbols': 'ksym',
                'debug_annotation_string_values': 'dstr'}


class Seq:
    def __init__(self):
        self.cleared = False
        self.defaults = None
        self.clocks = {}  # id -> [unit, incremental, last]
        self.iids = defaultdict(dict)


class Checker:
    def __init__(self, events=False):
        self.events = [] if events else None
        self.seqs = defaultdict(Seq)
        self.tracks = {}
        self.open = Counter()
        self.slice_ts = {}
        self.flows = set()
        self.thread_pid = {}
        self.pids = set()
        self.named_tids = set()
        self.cpu_last_next = {}
        self.cpu_last_ts = {}
        self.irq_waking_last = {}  # tid -> time of its last wake-up from an interrupt
        self.run_last = {}         # tid -> time it was last switched in
        self.s = {'switches': Counter(), 'comm': {}, 'wakings': Counter(), 'waking_irq': 0,
                  'wakings_irq_by_tid': Counter(),
                  'blocked': Counter(), 'states': Counter(), 'irqs': Counter(),
                  'instants': Counter(), 'counters': Counter(), 'tracks': [],
                  'threads': {}, 'lost_slices': 0, 'flows': 0, 'swapper_switches': 0,
                  'state_unknown_tids': [], 'cpus': 0, 'packets': 0, 'instant_ts': []}

    # -- sequences, interning, clocks
    def packet_time(self, p, seq):
        ts = one(p, 'timestamp')
        if ts is None:
            return None
        cid = one(p, 'timestamp_clock_id')
        if cid is None and seq.defaults is not None:
            cid = one(seq.defaults, 'timestamp_clock_id')
        if not cid or cid == 6:
            return ts
        if cid < 64 or cid > 127:
            raise Fail('timestamp on clock %d, neither BOOTTIME nor sequence-scoped' % cid)
        if cid not in seq.clocks:
            raise Fail('timestamp on sequence clock %d before a ClockSnapshot declares it' % cid)
        unit, incr, last = seq.clocks[cid]
        if incr:
            last += ts
            seq.clocks[cid][2] = last
            return last * unit
        return ts * unit

    def use(self, seq, kind, iid, flags, what):
        if not flags & 2 and not flags & 1:
            raise Fail('%s uses interned iid %d without SEQ_NEEDS_INCREMENTAL_STATE' % (what, iid))
        if iid not in seq.iids[kind]:
            raise Fail('%s uses %s iid %d before it is interned' % (what, kind, iid))
        return seq.iids[kind][iid]

    def packet(self, p):
        self.s['packets'] += 1
        sid = one(p, 'trusted_packet_sequence_id')
        if not sid:
            raise Fail('a packet without trusted_packet_sequence_id')
        seq = self.seqs[sid]
        flags = one(p, 'sequence_flags', 0)
        if flags & 1:
            seq.cleared = True
            seq.iids.clear()
        elif not seq.cleared:
            raise Fail('sequence %d: first packet does not clear incremental state' % sid)
        if seq.defaults is not None and not flags & 2:
            raise Fail('sequence %d has trace_packet_defaults: a later packet lacks '
                       'SEQ_NEEDS_INCREMENTAL_STATE' % sid)
        d = one(p, 'trace_packet_defaults')
        if d is not None:
            seq.defaults = d
        cs = one(p, 'clock_snapshot')
        if cs is not None:
            for c in many(cs, 'clocks'):
                cid = one(c, 'clock_id')
                if 64 <= cid <= 127:
                    seq.clocks[cid] = [one(c, 'unit_multiplier_ns', 1), one(c, 'is_incremental', False),
                                       one(c, 'timestamp')]
        ind = one(p, 'interned_data')
        if ind is not None:
            for n, e in ind:
                k = INTERN_KINDS.get(n)
                if k is None:
                    raise Fail('unexpected interned data %s' % n)
                iid, name = one(e, 'iid'), text(one(e, 'name', one(e, 'str', b'')))
                if iid in seq.iids[k] and seq.iids[k][iid] != name:
                    raise Fail('%s iid %d redefined (%r, was %r)' % (k, iid, name, seq.iids[k][iid]))
                seq.iids[k][iid] = name
        walk_strings(p)
        ts = self.packet_time(p, seq)
        for n, v in p:
            if n == 'track_descriptor':
                self.descriptor(v)
            elif n == 'track_event':
                self.track_event(v, ts, seq, flags)
            elif n == 'process_tree':
                self.process_tree(v)
            elif n == 'ftrace_events':
                self.bundle(v, seq, flags)
            elif n == 'generic_kernel_task_state_event':
                self.task_state(v, ts)

    # -- processes and threads
    def thread(self, tid, pid, name=None):
        if tid in self.thread_pid and self.thread_pid[tid] != pid:
            raise Fail('tid %d is in process %d and %d' % (tid, self.thread_pid[tid], pid))
        if tid == 0 or pid == 0:
            raise Fail('a task as tid/pid 0 (the idle thread)')
        self.thread_pid[tid] = pid
        if name is not None:
            self.s['threads'][str(tid)] = name

    def process_tree(self, pt):
        for pr in many(pt, 'processes'):
            self.pids.add(one(pr, 'pid'))
        for th in many(pt, 'threads'):
            self.thread(one(th, 'tid'), one(th, 'tgid'), text(one(th, 'name', b'')))

    def descriptor(self, d):
        u = one(d, 'uuid')
        parent = one(d, 'parent_uuid')
        if parent is not None and parent not in self.tracks:
            raise Fail('track %d declared before its parent %d' % (u, parent))
        t = {'name': text(one(d, 'name', b'')), 'counter': one(d, 'counter') is not None}
        pr, th = one(d, 'process'), one(d, 'thread')
        if pr is not None:
            self.pids.add(one(pr, 'pid'))
            t['name'] = text(one(pr, 'process_name', b''))
            t['kind'] = 'process'
        elif th is not None:
            self.thread(one(th, 'tid'), one(th, 'pid'), text(one(th, 'thread_name', b'')))
            t['name'] = text(one(th, 'thread_name', b''))
            t['kind'] = 'thread'
            t['tid'] = one(th, 'tid')
        else:
            t['kind'] = 'counter' if t['counter'] else 'track'
        if u not in self.tracks:
            self.s['tracks'].append([t['kind'], t['name']])
        self.tracks[u] = t

    def track_event(self, e, ts, seq, flags):
        u = one(e, 'track_uuid')
        if ts is None:
            raise Fail('track event without a timestamp')
        if u not in self.tracks:
            raise Fail('track event on track %s, not declared before' % u)
        t = self.tracks[u]
        typ = one(e, 'type')
        iid = one(e, 'name_iid')
        name = self.use(seq, 'name', iid, flags, 'track event') if iid is not None else \
            text(one(e, 'name', b''))
        for c in many(e, 'category_iids'):
            self.use(seq, 'cat', c, flags, 'track event category')
        for a in many(e, 'debug_annotations'):
            if one(a, 'name_iid') is not None:
                self.use(seq, 'dname', one(a, 'name_iid'), flags, 'debug annotation')
        if typ == 'TYPE_SLICE_BEGIN':
            self.open[u] += 1
            self.slice_ts.setdefault(u, []).append(ts)
            if name.endswith(')') and ' events lost (' in name or name == 'not recorded (stopped)':
                self.s['lost_slices'] += 1
                if self.events is not None:
                    self.events.append((ts, 'lost_begin', t['name']))
        elif typ == 'TYPE_SLICE_END':
            self.open[u] -= 1
            if self.open[u] < 0:
                raise Fail('slice end without a begin on track %r' % t['name'])
            if ts < self.slice_ts[u].pop():
                raise Fail('slice on %r ends before it begins' % t['name'])
            if self.events is not None and t['name'].endswith(' lost events'):
                self.events.append((ts, 'gap', t['name']))
        elif typ == 'TYPE_INSTANT':
            self.s['instants'][name] += 1
            self.s['instant_ts'].append(ts)
            for f in many(e, 'flow_ids'):
                self.flows.add(f)
            for f in many(e, 'terminating_flow_ids'):
                if f not in self.flows:
                    raise Fail('flow %d ends without a start' % f)
                self.s['flows'] += 1
        elif typ == 'TYPE_COUNTER':
            if not t['counter']:
                raise Fail('counter value on %r, not a counter track' % t['name'])
            self.s['counters'][t['name']] += 1
        else:
            raise Fail('track event of type %s' % typ)

    # -- ftrace
    def sched_tid(self, tid, what):
        if tid != 0 and tid not in self.thread_pid:
            raise Fail('%s names tid %d, in no process' % (what, tid))

    def switch(self, cpu, ts, prev_pid, next_pid, comm, full, prev_state=0):
        if self.events is not None:
            self.events.append((ts, 'switch', cpu, self.cpu_last_next.get(cpu, prev_pid), prev_state,
                                next_pid))
        if ts < self.cpu_last_ts.get(cpu, ts):
            raise Fail('cpu %d: switch at %d after one at %d' % (cpu, ts, self.cpu_last_ts[cpu]))
        self.cpu_last_ts[cpu] = ts
        if cpu not in self.cpu_last_next:
            if not full:
                raise Fail('cpu %d: its first switch is compact (no previous switch for prev_pid)' % cpu)
        elif full and prev_pid != self.cpu_last_next[cpu]:
            raise Fail('cpu %d: switch from %d, but %d was switched in' % (cpu, prev_pid, self.cpu_last_next[cpu]))
        self.cpu_last_next[cpu] = next_pid
        self.run_last[next_pid] = ts
        self.sched_tid(next_pid, 'sched_switch')
        if next_pid:
            self.s['switches']['%d/%d' % (cpu, next_pid)] += 1
            self.s['comm'][str(next_pid)] = comm
        else:
            self.s['swapper_switches'] += 1

    def bundle(self, b, seq, flags):
        cpu = one(b, 'cpu')
        if cpu is None or cpu >= MAX_CPUS:
            raise Fail('ftrace bundle with cpu %s' % cpu)
        self.s['cpus'] = max(self.s['cpus'], cpu + 1)
        cs = one(b, 'compact_sched')
        if cs is not None:
            table = [text(x) for x in many(cs, 'intern_table')]
            sw = [many(cs, k) for k in ('switch_timestamp', 'switch_prev_state', 'switch_next_pid',
                                        'switch_next_prio', 'switch_next_comm_index')]
            wk = [many(cs, k) for k in ('waking_timestamp', 'waking_pid', 'waking_target_cpu',
                                        'waking_prio', 'waking_comm_index')]
            fl = many(cs, 'waking_common_flags')
            if len({len(a) for a in sw}) > 1 or len({len(a) for a in wk}) > 1 or \
                    (fl and len(fl) != len(wk[0])):
                raise Fail('cpu %d: compact sched arrays of different lengths' % cpu)
            for i in sw[4] + wk[4]:
                if i >= len(table):
                    raise Fail('cpu %d: comm index %d outside the bundle table (%d)' % (cpu, i, len(table)))
            ts = 0
            for d, st, pid, prio, ci in zip(*sw):
                ts += d
                self.switch(cpu, ts, None, pid, table[ci], False, st)
            ts = 0
            for i, (d, pid, tcpu, prio, ci) in enumerate(zip(*wk)):
                ts += d
                self.sched_tid(pid, 'sched_waking')
                self.s['wakings'][str(pid)] += 1
                if self.events is not None:
                    self.events.append((ts, 'waking', cpu, pid))
                if fl and fl[i] & 0x08:
                    self.s['waking_irq'] += 1
                    self.irq_waking_last[pid] = max(ts, self.irq_waking_last.get(pid, ts))
                    self.s['wakings_irq_by_tid'][str(pid)] += 1
        for ev in many(b, 'event'):
            ts = one(ev, 'timestamp')
            if ts is None:
                raise Fail('ftrace event without a timestamp')
            ss = one(ev, 'sched_switch')
            br = one(ev, 'sched_blocked_reason')
            ie, ix = one(ev, 'irq_handler_entry'), one(ev, 'irq_handler_exit')
            if ss is not None:
                self.switch(cpu, ts, one(ss, 'prev_pid'), one(ss, 'next_pid'),
                            text(one(ss, 'next_comm', b'')), True, one(ss, 'prev_state', 0))
            elif br is not None:
                self.sched_tid(one(br, 'pid'), 'sched_blocked_reason')
                what = self.use(seq, 'ksym', one(br, 'caller'), flags, 'sched_blocked_reason')
                self.s['blocked'][what] += 1
            elif ie is not None:
                self.s['irqs'][text(one(ie, 'name', b''))] += 1
            elif ix is None:
                raise Fail('unexpected ftrace event %s' % [n for n, _ in ev])

    def task_state(self, e, ts):
        tid = one(e, 'tid')
        self.sched_tid(tid, 'task state')
        st = one(e, 'state', 'TASK_STATE_UNKNOWN')
        self.s['states'][st] += 1
        if self.events is not None:
            self.events.append((ts, 'state', tid, st))
        if st == 'TASK_STATE_UNKNOWN':
            self.s['state_unknown_tids'].append(tid)

    def finish(self):
        for u, n in self.open.items():
            if n:
                raise Fail('%d slices left open on %r' % (n, self.tracks[u]['name']))
        for tid, pid in self.thread_pid.items():
            if pid not in self.pids:
                raise Fail('thread %d of process %d, which is not declared' % (tid, pid))
        # tasks woken from an interrupt that do not run again before the
        # end: a wake-up with no release latency (nothing to measure)
        self.s['waking_irq_unrun'] = sum(1 for tid, t in self.irq_waking_last.items()
                                         if t > self.run_last.get(tid, -1))


def check(proto, path, events=False):
    c = Checker(events)
    for name, p in decode(proto, path):
        if name != 'packet':
            raise Fail('Trace field %s' % name)
        c.packet(p)
    c.finish()
    if events:
        c.s['events'] = c.events
    return c.s


def thread_states(events):
    """Thread states over time as trace_processor's thread-state tracker
    builds them from these events: [(ts, tid, state)], state 'Running', a
    prev_state letter ('R', 'R+', 'S', 'D', 'T', 'X') or a task-state name."""
    letters = {0: 'R', 0x800: 'R+', 1: 'S', 2: 'D', 4: 'T', 0x10: 'X'}
    gk = {'TASK_STATE_UNKNOWN': 'Unknown', 'TASK_STATE_RUNNABLE': 'R', 'TASK_STATE_INTERRUPTIBLE_SLEEP': 'S',
          'TASK_STATE_UNINTERRUPTIBLE_SLEEP': 'D', 'TASK_STATE_STOPPED': 'T', 'TASK_STATE_DESTROYED': 'X'}
    cur, out = {}, []
    order = {'switch': 0, 'waking': 1, 'state': 2}
    for e in sorted((e for e in events if e[1] in order), key=lambda e: (e[0], order[e[1]])):
        if e[1] == 'switch':
            _, _, cpu, prev, st, nxt = e
            if prev:
                cur[prev] = letters.get(st, '?')
                out.append((e[0], prev, cur[prev]))
            if nxt:
                cur[nxt] = 'Running'
                out.append((e[0], nxt, 'Running'))
        elif e[1] == 'waking':
            if cur.get(e[3]) not in ('R', 'Running'):
                cur[e[3]] = 'R'
                out.append((e[0], e[3], 'R'))
        else:
            cur[e[2]] = gk.get(e[3], e[3])
            out.append((e[0], e[2], cur[e[2]]))
    return out


def compare_analyze(s, tw, trace):
    r = subprocess.run([tw, 'analyze', '--json', '-q', trace], capture_output=True, text=True)
    if r.returncode not in (0, 3):
        raise Fail('tracewire analyze failed: %s' % r.stderr)
    a = json.loads(r.stdout)
    want = Counter()
    for c in a['cores']:
        for t in c['tasks']:
            want[t['name']] += t['switches_in']
    got = Counter()
    for k, n in s['switches'].items():
        tid = k.split('/')[1]
        got[s['threads'].get(tid, s['comm'].get(tid))] += n
    want = +want
    if got != want:
        raise Fail('switches per task differ from analyze: sched %s, analyze %s' % (
            dict(got - want), dict(want - got)))
    return sum(got.values())


def main(argv):
    summary = analyze = None
    while argv[:1] in (['--summary'], ['--analyze']):
        if argv[0] == '--summary':
            summary, argv = argv[1], argv[2:]
        else:
            analyze, argv = argv[1:3], argv[3:]
    if len(argv) < 2:
        sys.exit(__doc__)
    bad, out = 0, {}
    for path in argv[1:]:
        try:
            s = check(argv[0], path)
            s['instants'] = dict(s['instants'])
            out[path] = s
            same = ''
            if analyze:
                same = ', per task as analyze says (%d)' % compare_analyze(s, *analyze)
            print('perfetto_check: %s: ok (%d packets, %d switches, %d wake-ups, %d cpus%s)' % (
                path, s['packets'], sum(s['switches'].values()), sum(s['wakings'].values()),
                s['cpus'], same))
        except Fail as e:
            print('perfetto_check: %s: FAIL: %s' % (path, e))
            bad += 1
    if summary:
        json.dump(out, open(summary, 'w'), indent=1, default=dict)
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
