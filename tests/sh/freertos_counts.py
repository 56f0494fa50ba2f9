#!/usr/bin/env python3
"""Compare a FreeRTOS application's own counts with its recorded trace.

    freertos_counts.py PRINT_OUTPUT TARGET_LOG

PRINT_OUTPUT is `tracewire print TRACE` (one event per line, names
resolved); TARGET_LOG holds the application's lines (app.c,
app_print_counts):

    tw-app-count <event> <type> <object kind> <object name> <count>
    tw-app-ring emitted <burst events> dropped <logger drops>

Every count must equal the number of recorded events of that event and
type on objects of that name, exactly; the drops the trace announces must
equal the drops the target's logger counted; the burst's events must all
be recorded or dropped. Prints one line per check; exit 1 on any mismatch.
Stdlib only.
"""
import re
import sys

LINE = re.compile(r'^\[[0-9.]+\] \([^)]*\) \S+ (\w+): \{ (.*) \}')
FIELD = re.compile(r'(\w+) = ("(?:[^"\\]|\\.)*"|[^,"]+?(?: "(?:[^"\\]|\\.)*")?)(?:, |$)')
# the field naming the object, per object kind, in the events counted
OBJ_FIELD = {"queue": "queue", "mutex": "mutex", "sem": "sem", "task": "task",
             "timer": "timer", "egroup": "group", "sbuf": "sbuf"}


def fields(body):
    out = {}
    for m in FIELD.finditer(body):
        v = m.group(2)
        q = re.match(r'^(\S+) "(.*)"$', v)
        out[m.group(1)] = (q.group(1), q.group(2)) if q else (v.strip('"'), None)
    return out


def main(argv):
    if len(argv) != 3:
        print(__doc__.split("\n")[2], file=sys.stderr)
        return 2
    counts = []
    ring = None
    with open(argv[2], encoding="utf-8", errors="replace") as f:
        for line in f:
            p = line.split()
            if p[:1] == ["tw-app-count"] and len(p) == 6:
                counts.append((p[1], p[2], p[3], p[4], int(p[5])))
            elif p[:1] == ["tw-app-ring"] and len(p) == 5:
                ring = (int(p[2]), int(p[4]))
    if not counts or ring is None:
        print("freertos_counts: no tw-app-count / tw-app-ring lines in %s" % argv[2], file=sys.stderr)
        return 1
    names = {}          # (kind, number) -> the name in force
    seen = {}           # (event, type, kind, name) -> count
    drops = burst = 0
    with open(argv[1], encoding="utf-8", errors="replace") as f:
        for line in f:
            m = LINE.match(line)
            if not m:
                continue
            ev, fl = m.group(1), fields(m.group(2))
            if ev == "Name":
                names[(fl["kind"][0], fl["number"][0])] = fl["name"][0]
                continue
            if ev == "Drops":
                drops += int(fl["count"][0])
                continue
            if ev == "LogBurst":
                burst += 1
                continue
            if ev == "ObjectEvent":
                kind = fl["kind"][0]
                key = (ev, fl["type"][0], kind, names.get((kind, fl["number"][0])))
            elif ev == "TaskSwitch":  # the marker field: its constant's name, or a number
                key = (ev, fl["task"][0], "-", "-")
            else:
                typ = fl.get("type", (None,))[0]
                key = None
                for kind, fname in OBJ_FIELD.items():
                    if fname in fl:
                        key = (ev, typ, kind, fl[fname][1])
                        if kind != "task":
                            break
            if key:
                seen[key] = seen.get(key, 0) + 1
    bad = 0
    for ev, typ, kind, name, want in counts:
        got = seen.get((ev, typ, kind, name), 0)
        ok = got == want
        bad += not ok
        print("%s %-18s %-11s %-7s %-10s app %6d trace %6d" % ("ok  " if ok else "FAIL", ev, typ, kind, name, want, got))
    emitted, logger_drops = ring
    ok = drops == logger_drops
    bad += not ok
    print("%s ring drops: logger %d, announced in the trace %d" % ("ok  " if ok else "FAIL", logger_drops, drops))
    ok = burst <= emitted <= burst + drops
    bad += not ok
    print("%s LogBurst: emitted %d, recorded %d, at most %d of them dropped" % ("ok  " if ok else "FAIL", emitted, burst, drops))
    if bad:
        print("freertos_counts: %d check(s) failed" % bad, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
