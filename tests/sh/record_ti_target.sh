#!/usr/bin/env bash
# record --no-footer against a target that speaks UIA as TI's own do
# (issue 18), written here from the descriptions, not with tracewire's code:
# it takes commands only without a footer and reads their bodies in the
# order the E bit says; it answers without footers, little-endian (E = 0);
# its event packets have no footer, some records no timestamp, and its
# snapshots TI's length word. The trace must come out whole, and say so.
set -euo pipefail
B=$1
S=$2
tw=$B/tools/tracewire
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill "$pid" 2>/dev/null; [ -n "${KEEP:-}" ] || rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; [ -f "$tmp/target.log" ] && cat "$tmp/target.log" >&2; exit 1; }

python3 - "$S" "$tmp/port" > "$tmp/target.log" 2>&1 <<'PY' &
import re, socket, struct, sys
src, portfile = sys.argv[1], sys.argv[2]
text = lambda p: open(src + '/' + p).read()
ids = {m.group(1): int(m.group(2), 0) for m in re.finditer(r'^TW_EVENT\((\w+), (\w+),', text('include/tracewire/events.def'), re.M)}
mods = {m.group(1): int(m.group(2)) for m in re.finditer(r'TW_MOD_(\w+) = (\d+)', text('include/tracewire/vocab.h'))}
cmd_h = text('include/tracewire/cmd.h')
lcmd = {m.group(1): int(m.group(2)) for m in re.finditer(r'TW_LCMD_(\w+)\s*= (\d+)', cmd_h)}
info_names = re.findall(r'TW_INFO_(\w+),', re.search(r'enum tw_info_word \{(.*?)\}', cmd_h, re.S).group(1))
objs = re.findall(r'TW_OBJ_(\w+)', text('include/tracewire/vocab.h'))
MSG, CMD, ACK, RESULT = 9, 1, 0, 2          # 001: HdrType_Msg, MsgType_CMD/ACK/RESULT
le = lambda *w: b''.join(struct.pack('<I', x & 0xFFFFFFFF) for x in w)
def evhdr(t, n, seq): return t << 27 | n << 16 | seq

seq = 0
def timed(ts, name, mod, *payload):            # HdrType_EventWithTimestamp
    global seq
    r = le(evhdr(1, 16 + 4 * len(payload), seq), ts, 0, ids[name] << 16 | mods[mod], *payload)
    seq += 1
    return r
def plain(name, mod, *payload):                # HdrType_Event: no timestamp
    global seq
    r = le(evhdr(0, 8 + 4 * len(payload), seq), ids[name] << 16 | mods[mod], *payload)
    seq += 1
    return r
def ti_snapshot(ts, name, data, snap_id, max_words):  # writeMemoryRange's records
    global seq
    out, off, total = b'', 0, len(data)
    words = (total + 3) // 4
    data = data + b'\0' * (4 * words - total)
    while True:
        n = min(words, max_words)
        out += le(evhdr(3, 40 + 4 * n, seq), ts, 0, ids[name] << 16 | mods['CONTROL'],
                  0x08001234, 77, snap_id, 0x20000000 + off, (4 * n) << 16 | total, 0)
        out += data[off:off + 4 * n]
        seq += 1
        off += 4 * n
        words -= n
        if not words:
            return out
def packet(recs, pseq):                        # EventPkt without a footer: length = header + records
    n = 16 + len(recs)
    return struct.pack('>IIII', 10 << 28 | n, pseq << 16, 0x0001, 0xFFFF << 16 | 1) + recs

name = struct.pack('<I', objs.index('TASK') | 3 << 8 | 1 << 16) + b'main_task\0'
events = [
    packet(timed(1000, 'SYNC', 'CONTROL', 1000000) + timed(1100, 'TASK_SWITCH', 'RTOS', 1), 0),
    packet(ti_snapshot(1150, 'NAME', name, 1, 2) + plain('MUTEX', 'RTOS', 1 | 2 << 16, 0) +
           timed(1300, 'TASK_SWITCH', 'RTOS', 2), 1),
    packet(timed(1400, 'TASK_SWITCH', 'RTOS', 1), 2),
]

s = socket.socket()
s.bind(('127.0.0.1', 0))
s.listen(1)
open(portfile, 'w').write(str(s.getsockname()[1]))
c, _ = s.accept()
def recv(n):
    b = b''
    while len(b) < n:
        k = c.recv(n - len(b))
        if not k:
            sys.exit('target: host closed')
        b += k
    return b
def reply(h, kind, body):
    w1, w2, tag, w4 = h
    n = 16 + 4 * len(body)                    # no footer
    c.sendall(struct.pack('>IIII', MSG << 28 | 0 << 27 | n << 16 | kind << 12 | (w1 & 0xFFF), w2, tag,
                          (w4 & 0xFFFF) << 16 | 1) + le(*body))
while True:
    h = struct.unpack('>IIII', recv(16))
    n = h[0] >> 16 & 0x7FF
    big = h[0] >> 27 & 1
    body = recv(n - 16)
    words = [struct.unpack('>I' if big else '<I', body[i:i + 4])[0] for i in range(0, len(body), 4)]
    if h[0] >> 28 != MSG or h[0] >> 12 & 0xF != CMD:
        sys.exit('target: not a command: %08x' % h[0])
    if words and words[-1] == (n << 16 | 0x7777):
        sys.exit('target: a footer: TI\'s targets take none')
    cmd = h[1] & 0xFFFF
    if cmd == lcmd['GET_INFO']:
        info = dict(PROTOCOL=1, ENDIAN=0, TS_FREQ_HZ=1000000, TS_BITS=32, CAPACITY=128, MAX_PKT=256,
                    ENDPOINT=1, LOGGER=1, MASK=0xFFFF)
        reply(h, RESULT, [info.get(k, 0) for k in info_names if k != 'WORDS'])
    elif cmd == lcmd['SET_MASK']:
        if words != [0x30]:
            sys.exit('target: SET_MASK body %s, want [0x30]' % words)
        reply(h, RESULT, words)
    elif cmd == lcmd['START']:
        reply(h, ACK, [])
        for p in events:
            c.sendall(p)
    elif cmd == lcmd['STOP']:
        reply(h, ACK, [])
        c.close()
        print('target: done')
        sys.exit(0)
    else:
        sys.exit('target: command %d' % cmd)
PY
pid=$!
for _ in $(seq 100); do [ -s "$tmp/port" ] && break; sleep 0.05; done
[ -s "$tmp/port" ] || fail "the target did not start"
"$tw" record -q --no-footer --mask 0x30 --idle 0.5 --from "tcp://127.0.0.1:$(cat "$tmp/port")" \
  -o "$tmp/t.twt" 2> "$tmp/record.err" || fail "record: $(cat "$tmp/record.err")"
wait "$pid" || fail "the target failed"
pid=
grep -q 'target: done' "$tmp/target.log" || fail "the target saw no STOP"

"$tw" info "$tmp/t.twt" > "$tmp/info.txt" || fail "info: $(cat "$tmp/info.txt")"
grep -q '^framing: footer-less, as TI.s senders write packets: [0-9]* of [0-9]* packets without a footer (recorded with --no-footer)$' \
  "$tmp/info.txt" || fail "info: $(cat "$tmp/info.txt")"
grep -q 'clock_hz        1000000' "$tmp/info.txt" || fail "info: no target info"
"$tw" print "$tmp/t.twt" > "$tmp/print.txt" 2> "$tmp/print.err" || fail "print: $(cat "$tmp/print.err")"
[ ! -s "$tmp/print.err" ] || fail "print said: $(cat "$tmp/print.err")"
grep -q 'Name: { kind = task, prio = 3, number = 1, name = "main_task" }' "$tmp/print.txt" \
  || fail "no NAME from TI's snapshot layout: $(cat "$tmp/print.txt")"
grep -q '^\[0.001150000\] .*MutexEvent: { task = 1 "main_task", mutex = 2, type = Lock }, marker = Up, time = inferred$' \
  "$tmp/print.txt" || fail "the record without a timestamp: $(cat "$tmp/print.txt")"
[ "$(grep -c TaskSwitch "$tmp/print.txt")" -eq 3 ] || fail "task switches: $(cat "$tmp/print.txt")"
echo "record_ti_target: ok (commands without footers, little-endian replies, footer-less packets)"
