#!/usr/bin/env python3
"""Expand include/tracewire/events.def into the code and docs derived from it.

    gen_events.py [--root DIR] [--out DIR] [--check]

Reads ROOT/include/tracewire/events.def (ROOT defaults to the source tree
this script lives in) and writes, under OUT (default ROOT):

    include/tracewire/events_gen.h   ids, type enums, payload layout, emitters
    src/common/events_desc.c         tw_event_descs[] and the vocab.h functions
    src/model/meaning_gen.c          tw_meanings[]: what each event does to the
                                     RTOS state model (TW_MEANING rows; host only)
    docs/events.md                   the reference a human reads

--check writes nothing and exits 1 naming every file that differs from what
would be generated (tests/sh/gen_fresh.sh runs it).

Why a generator and not X-macros: the packing rule (fields aligned to their
own width, spilling to the next word) is arithmetic over the whole row list;
doing it in the preprocessor would make every emitter unreadable. Output is
deterministic (no dates, no paths) so the freshness check is a plain diff.
Stdlib only.
"""
import argparse
import os
import re
import sys

TYPES = {"U8": 8, "U16": 16, "U32": 32, "ENUM8": 8, "STRING": 0}
CTYPES = {"U8": "uint8_t", "U16": "uint16_t", "U32": "uint32_t", "ENUM8": "uint8_t"}
OBJS = ["NONE", "TASK", "MUTEX", "SEM", "EVENT", "MSEM", "MEVENT", "ASEM",
        "RSEM", "IRQ", "THREAD", "OBJKIND", "QUEUE", "EGROUP", "TIMER", "SBUF"]
OBJ_NAMES = ["none", "task", "mutex", "sem", "event", "msem", "mevent", "asem",
             "rsem", "irq", "thread", "objkind", "queue", "egroup", "timer", "sbuf"]
MARKERS = ["NONE", "UP", "DOWN", "PUSH", "UP_BLOCK", "DOWN_BLOCK", "UP_UP",
           "UP_PUSH", "UP_UP_PUSH", "INC", "DEC", "WAIT", "PASS"]
MARKER_NAMES = ["None", "Up", "Down", "Push", "UpBlock", "DownBlock", "UpUp",
                "UpPush", "UpUpPush", "Inc", "Dec", "Wait", "Pass"]
# What an event does to the RTOS state model (include/tracewire/model/meaning.h:
# enum tw_act, enum tw_obj_act; the C code uses the names, not the order).
ACTS = ["NONE", "RUN", "BLOCK", "WAIT", "DELAY", "NOTIFY_WAIT", "READY", "SUSPEND",
        "RESUME", "NOTIFY", "CREATE", "DELETE", "PRIO_SET", "PRIO_INHERIT",
        "PRIO_DISINHERIT", "IRQ_ENTER", "IRQ_EXIT", "IRQ_NAME", "LOSS", "NAME", "TRACE_START",
        "TRACE_STOP"]
# The acts on a task (the rest act on the core or the trace).
TASK_ACTS = ACTS[ACTS.index("RUN"):ACTS.index("PRIO_DISINHERIT") + 1]
OBJ_ACTS = ["NONE", "LOCK", "UNLOCK", "LOCK_INC", "LOCK_DEC", "GIVE", "GIVE_MANY", "TAKE",
            "RELEASE", "RELEASE_MANY", "RELEASE_ALL", "ADD", "SUB", "EMPTY", "CREATE",
            "CREATE_BINARY", "DELETE", "CONSUME", "SIGNAL", "CREATE_MAX"]
# Where a row's task comes from (enum tw_task_src in meaning.h).
TASK_SRCS = ["NONE", "FIELD", "OBJECT", "RUNNING"]
MODULES = {"KERNEL": 1, "RTOS": 2, "CONTROL": 3, "CUSTOM": 4}
FLAGS = {"TIMED": 1, "STREAMER": 2}
MASK_BITS = 32  # ids 1..32 are logger mask bits (seed 004)

ROW = re.compile(r'^\s*(TW_EVENT|TW_FIELD|TW_ENUMV|TW_MEANING)\s*\((.*)\)\s*$')
ARG = re.compile(r'\s*("(?:[^"\\]|\\.)*"|[^,]*?)\s*(?:,|$)')


class DefError(Exception):
    pass


def split_args(s, where):
    args, pos = [], 0
    while pos < len(s):
        m = ARG.match(s, pos)
        if not m or m.end() == pos:
            raise DefError("%s: cannot parse arguments at column %d" % (where, pos))
        args.append(m.group(1))
        pos = m.end()
    return args


def unquote(s, where):
    if len(s) < 2 or s[0] != '"' or s[-1] != '"':
        raise DefError("%s: expected a string literal, got %s" % (where, s))
    return s[1:-1]


def parse_int(s, where):
    try:
        return int(s, 0)
    except ValueError:
        raise DefError("%s: expected an integer, got %r" % (where, s))


def parse(path):
    events = []
    by_name = {}
    meanings = []
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    in_comment = False
    for n, raw in enumerate(lines, 1):
        where = "%s:%d" % (path, n)
        line = raw.strip()
        if in_comment:
            if "*/" in line:
                in_comment = False
            continue
        if line.startswith("/*"):
            in_comment = "*/" not in line
            continue
        if not line or line.startswith("//") or line.startswith("#"):
            continue  # blank, comment, or preprocessor plumbing for X-macro includers
        m = ROW.match(line)
        if not m:
            raise DefError("%s: not a TW_EVENT/TW_FIELD/TW_ENUMV/TW_MEANING row: %s" % (where, line))
        kind, args = m.group(1), split_args(m.group(2), where)
        if kind == "TW_MEANING":
            meanings.append((where, args))
            continue
        if kind == "TW_EVENT":
            if len(args) != 8:
                raise DefError("%s: TW_EVENT takes 8 arguments, got %d" % (where, len(args)))
            name, eid, mod, flags, seed, mfield, marker, doc = args
            if name in by_name:
                raise DefError("%s: event %s defined twice" % (where, name))
            if mod not in MODULES:
                raise DefError("%s: unknown module %s" % (where, mod))
            fl = 0
            for f in flags.split("|"):
                f = f.strip()
                if f not in FLAGS:
                    raise DefError("%s: unknown flag %s" % (where, f))
                fl |= FLAGS[f]
            if marker not in MARKERS:
                raise DefError("%s: unknown marker %s" % (where, marker))
            ev = dict(name=name, id=parse_int(eid, where), module=mod, flags=fl,
                      seed=unquote(seed, where), mfield=None if mfield == "-" else mfield,
                      marker=marker, doc=unquote(doc, where), fields=[], enums=[],
                      where=where)
            events.append(ev)
            by_name[name] = ev
        elif kind == "TW_FIELD":
            if len(args) != 5:
                raise DefError("%s: TW_FIELD takes 5 arguments, got %d" % (where, len(args)))
            ev = owner(by_name, events, args[0], where)
            fname, ftype, obj, doc = args[1:]
            if ftype not in TYPES:
                raise DefError("%s: unknown field type %s" % (where, ftype))
            if obj not in OBJS:
                raise DefError("%s: unknown object kind %s" % (where, obj))
            if any(f["name"] == fname for f in ev["fields"]):
                raise DefError("%s: field %s.%s defined twice" % (where, ev["name"], fname))
            ev["fields"].append(dict(name=fname, type=ftype, obj=obj, doc=unquote(doc, where)))
        else:
            if len(args) != 5:
                raise DefError("%s: TW_ENUMV takes 5 arguments, got %d" % (where, len(args)))
            ev = owner(by_name, events, args[0], where)
            cname, val, marker, doc = args[1:]
            if marker not in MARKERS:
                raise DefError("%s: unknown marker %s" % (where, marker))
            if any(e["name"] == cname for e in ev["enums"]):
                raise DefError("%s: constant %s.%s defined twice" % (where, ev["name"], cname))
            ev["enums"].append(dict(name=cname, value=parse_int(val, where), marker=marker,
                                    doc=unquote(doc, where)))
    check(events)
    for ev in events:
        layout(ev)
        ev["meanings"] = []
    for where, args in meanings:
        add_meaning(by_name, where, args)
    return sorted(events, key=lambda e: e["id"])


def add_meaning(by_name, where, args):
    """A TW_MEANING row, resolved to field indexes (see events.def)."""
    if len(args) != 6:
        raise DefError("%s: TW_MEANING takes 6 arguments, got %d" % (where, len(args)))
    name, const, act, oact, vfield, ofield = args
    if name not in by_name:
        raise DefError("%s: TW_MEANING for unknown event %s" % (where, name))
    ev = by_name[name]
    if act not in ACTS:
        raise DefError("%s: unknown act %s" % (where, act))
    if oact not in OBJ_ACTS:
        raise DefError("%s: unknown object act %s" % (where, oact))
    value = None
    if const != "-":
        hits = [e for e in ev["enums"] if e["name"] == const]
        if not hits:
            raise DefError("%s: %s has no constant %s" % (where, name, const))
        value = hits[0]["value"]
    if any(m["value"] == value for m in ev["meanings"]):
        raise DefError("%s: meaning of %s %s given twice" % (where, name, const))
    names = [f["name"] for f in ev["fields"]]

    def field(fname, what):
        if fname == "-":
            return -1
        if fname not in names:
            raise DefError("%s: %s field %s is not a field of %s" % (where, what, fname, name))
        return names.index(fname)

    tf = next((i for i, f in enumerate(ev["fields"]) if f["obj"] == "TASK"), -1)
    kf = next((i for i, f in enumerate(ev["fields"]) if f["obj"] == "OBJKIND"), -1)
    of = field(ofield, "object")
    if of < 0:
        of = next((i for i, f in enumerate(ev["fields"])
                   if f["obj"] not in ("NONE", "TASK", "OBJKIND")), -1)
    okind = ev["fields"][of]["obj"] if of >= 0 and ev["fields"][of]["obj"] != "NONE" else "NONE"
    if oact != "NONE" and of < 0:
        raise DefError("%s: %s acts on an object but %s names none" % (where, oact, name))
    # The task a task act acts on: the TASK field; else the object, when the
    # event names its kind (an OBJKIND field: a task is an object too); else
    # the task running on the event's core (events.def: events with no task
    # field were done by it).
    if tf >= 0:
        src = "FIELD"
    elif act in TASK_ACTS and kf >= 0 and of >= 0:
        src = "OBJECT"
    elif act in TASK_ACTS:
        src = "RUNNING"
    else:
        src = "NONE"
    ev["meanings"].append(dict(const=const, value=value, act=act, oact=oact,
                               vfield=field(vfield, "value"), tfield=tf, ofield=of,
                               kfield=kf, okind=okind, src=src, where=where))


def owner(by_name, events, name, where):
    if not events or events[-1]["name"] != name:
        raise DefError("%s: row for %s must follow its TW_EVENT" % (where, name))
    return by_name[name]


def check(events):
    ids = {}
    for ev in events:
        w = ev["where"]
        if not 0 < ev["id"] <= 0xFFFF:
            raise DefError("%s: id %d out of 1..65535" % (w, ev["id"]))
        if ev["id"] in ids:
            raise DefError("%s: id %d already used by %s" % (w, ev["id"], ids[ev["id"]]))
        ids[ev["id"]] = ev["name"]
        streamer = ev["flags"] & FLAGS["STREAMER"]
        if not streamer and ev["id"] > MASK_BITS:
            raise DefError("%s: logger event %s needs an id <= %d (mask bit)" % (w, ev["name"], MASK_BITS))
        if streamer and ev["flags"] & FLAGS["TIMED"]:
            raise DefError("%s: STREAMER events carry the record timestamp, not TIMED" % w)
        strings = [i for i, f in enumerate(ev["fields"]) if f["type"] == "STRING"]
        if len(strings) > 1 or (strings and strings[0] != len(ev["fields"]) - 1):
            raise DefError("%s: at most one STRING field, and it must be last" % w)
        names = [f["name"] for f in ev["fields"]]
        if ev["mfield"] is not None and ev["mfield"] not in names:
            raise DefError("%s: marker field %s is not a field of %s" % (w, ev["mfield"], ev["name"]))
        if ev["enums"] and ev["mfield"] is None:
            raise DefError("%s: %s has constants but no marker field" % (w, ev["name"]))
        if ev["mfield"] is not None:
            bits = TYPES[ev["fields"][names.index(ev["mfield"])]["type"]]
            seen = set()
            for e in ev["enums"]:
                if e["value"] >= (1 << bits):
                    raise DefError("%s: %s.%s = %d does not fit %d bits" % (w, ev["name"], e["name"], e["value"], bits))
                if e["value"] in seen:
                    raise DefError("%s: %s value %d used twice" % (w, ev["name"], e["value"]))
                seen.add(e["value"])


def layout(ev):
    """The packing rule of events.def's header comment."""
    word, bit = 0, 0
    for f in ev["fields"]:
        bits = TYPES[f["type"]]
        if bits == 0:
            f.update(word=0, shift=0, bits=0)
            continue
        if bit % bits:
            bit += bits - bit % bits
        if bit + bits > 32:
            word, bit = word + 1, 0
        f.update(word=word, shift=bit, bits=bits)
        bit += bits
    ev["words"] = word + 1 if bit else word
    ev["mindex"] = -1 if ev["mfield"] is None else [f["name"] for f in ev["fields"]].index(ev["mfield"])


def c_str(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def lower(name):
    return name.lower()


HEADER_NOTE = "/* GENERATED by tools/gen/gen_events.py from include/tracewire/events.def.\n * Do not edit: change events.def and run `cmake --build <dir> --target gen`. */\n"


def has_emitter(ev):
    return ev["flags"] & FLAGS["TIMED"] and ev["module"] in ("KERNEL", "RTOS")


def gen_header(events):
    o = [HEADER_NOTE]
    o.append("""/*
 * The event vocabulary as C constants, and one inline emitter per timed
 * kernel/RTOS event.
 *
 * Part 1 (always): event ids TW_EV_<NAME>, the per-event type enums
 * TW_<NAME>_<Constant> (seed member names and values, in seed order),
 * payload sizes TW_EV_<NAME>_WORDS (packed words after the timestamp word)
 * and field positions TW_EV_<NAME>_<FIELD>_{WORD,SHIFT,BITS}.
 *
 * Part 2 (only when the includer defined TW_TRACE_ON, i.e. through
 * tracewire/trace.h): emitters tw_<name>(...) and tw_<name>_at(ts, ...).
 * Each costs one TW_TRACE_ON(id) test when the event is disabled at run
 * time, and is an empty inline function when TW_CFG_TRACE or
 * TW_CFG_EV_<NAME> is 0. The includer supplies:
 *   TW_TRACE_ON(id)            nonzero when event id is being recorded
 *   TW_TRACE_NOW()             the 32-bit timestamp
 *   TW_TRACE_PUT(id, w, n)     append n words (timestamp first) to the logger
 * and may supply (else they are made of the two above):
 *   TW_TRACE_PUT_NOW(id, n, a, b)  append the timestamp, read by the logger,
 *                              and n (1 or 2) payload words a, b: the plain
 *                              emitters' put, without an array on the stack
 *   TW_TRACE_PUT_STAMPED(id, w, n) as TW_TRACE_PUT, w[0] filled by the
 *                              logger with the timestamp once the event's
 *                              space is taken (larger payloads)
 * Freestanding.
 */
#ifndef TRACEWIRE_EVENTS_GEN_H
#define TRACEWIRE_EVENTS_GEN_H

#include <stdint.h>

enum tw_event_id {
""")
    for ev in events:
        o.append("  TW_EV_%s = %d, /* %s */\n" % (ev["name"], ev["id"], ev["seed"]))
    o.append("};\n\n")
    o.append("#define TW_EV_COUNT %d /* events in the vocabulary */\n" % len(events))
    o.append("#define TW_EV_MAX_ID %d /* the highest id in the vocabulary */\n"
             % max(ev["id"] for ev in events))
    maxw = max(ev["words"] for ev in events)
    o.append("#define TW_EV_MAX_PAYLOAD_WORDS %d /* largest packed payload */\n\n" % maxw)
    for ev in events:
        o.append("/* %s (%s, id %d): %s */\n" % (ev["name"], ev["seed"], ev["id"], ev["doc"]))
        o.append("#define TW_EV_%s_WORDS %d\n" % (ev["name"], ev["words"]))
        for f in ev["fields"]:
            if f["bits"]:
                up = "TW_EV_%s_%s" % (ev["name"], f["name"].upper())
                o.append("#define %s_WORD %d\n#define %s_SHIFT %d\n#define %s_BITS %d\n"
                         % (up, f["word"], up, f["shift"], up, f["bits"]))
        if ev["enums"]:
            o.append("enum tw_%s_type {\n" % lower(ev["name"]))
            for e in ev["enums"]:
                val = "0x%X" % e["value"] if e["value"] > 255 else "%d" % e["value"]
                o.append("  TW_%s_%s = %s, /* %s: %s */\n"
                         % (ev["name"], e["name"], val, MARKER_NAMES[MARKERS.index(e["marker"])], e["doc"]))
            o.append("};\n")
        o.append("\n")
    o.append(gen_pseudo_tasks(events))
    o.append(gen_wire(events))
    o.append("#endif /* TRACEWIRE_EVENTS_GEN_H */\n\n")

    o.append("""/* ---- part 2: emitters ------------------------------------------------- */
#if defined(TW_TRACE_ON) && !defined(TRACEWIRE_EVENTS_GEN_EMITTERS)
#define TRACEWIRE_EVENTS_GEN_EMITTERS

#ifndef TW_CFG_TRACE
#define TW_CFG_TRACE 1
#endif
#ifndef TW_TRACE_PUT_NOW
#define TW_TRACE_PUT_NOW(id, n, a, b)                                          \
  do {                                                                         \
    uint32_t tw_w_[3] = { TW_TRACE_NOW(), (a), (b) };                          \
    TW_TRACE_PUT((id), tw_w_, 1u + (n));                                       \
  } while (0)
#endif
#ifndef TW_TRACE_PUT_STAMPED
#define TW_TRACE_PUT_STAMPED(id, w, n)                                         \
  do {                                                                         \
    (w)[0] = TW_TRACE_NOW();                                                   \
    TW_TRACE_PUT((id), (w), (n));                                              \
  } while (0)
#endif
""")
    for ev in events:
        if not has_emitter(ev):
            continue
        o.append("#ifndef TW_CFG_EV_%s\n#define TW_CFG_EV_%s 1\n#endif\n" % (ev["name"], ev["name"]))
    o.append("\n")
    for ev in events:
        if not has_emitter(ev):
            continue
        o.append(gen_emitter(ev))
    o.append("#endif /* emitters */\n")
    return "".join(o)


def pseudo_tasks(events):
    """The constants of a marker field that names a task: task numbers that
    name no task (interrupt context entered and left)."""
    out = []
    for ev in events:
        if ev["mfield"] is None:
            continue
        f = ev["fields"][ev["mindex"]]
        if f["obj"] == "TASK":
            out.extend((ev, e) for e in ev["enums"])
    return sorted(out, key=lambda p: p[1]["value"])


def gen_pseudo_tasks(events):
    ps = pseudo_tasks(events)
    if not ps:
        return ""
    first = ps[0][1]["value"]
    if [p[1]["value"] for p in ps] != list(range(first, first + len(ps))) or \
            first + len(ps) - 1 != 0xFFFF:
        raise DefError("%s: the task numbers a TASK marker field names must be the top ones, "
                       "without a hole" % ps[0][0]["where"])
    o = ["/* Task numbers that name no task: the constants of a marker field that\n"
         " * names a task (interrupt context). Numbers from TW_TASK_PSEUDO_FIRST up\n"
         " * are never a task's; X(constant, \"Name\") for each, lowest first. */\n"]
    o.append("#define TW_TASK_PSEUDO_FIRST 0x%Xu\n" % first)
    o.append("#define TW_TASK_PSEUDO_NAMES(X)")
    for ev, e in ps:
        o.append(" \\\n  X(TW_%s_%s, %s)" % (ev["name"], e["name"], c_str(e["name"])))
    o.append("\n\n")
    return "".join(o)


def gen_wire(events):
    """tw_event_wire(): module and flags per id, in runs of nearby ids."""
    runs = []
    for ev in sorted(events, key=lambda e: e["id"]):
        if runs and ev["id"] - runs[-1][-1]["id"] <= 4:
            runs[-1].append(ev)
        else:
            runs.append([ev])
    o = ["""/* The two facts target code needs about an event, without the descriptor
 * tables of src/common/events_desc.c (names and docs, for hosts): its
 * record module id (TW_EVW_MODULE) and TW_EVF_* flags (TW_EVW_FLAGS); 0
 * for an id the vocabulary does not have. Any context. */
#define TW_EVW_MODULE(w) ((w) & 0xFFu)
#define TW_EVW_FLAGS(w) ((w) >> 8)
static inline uint32_t tw_event_wire(uint32_t id)
{
"""]
    for k, run in enumerate(runs):
        first = 0 if run[0]["id"] <= 4 else run[0]["id"]
        last = run[-1]["id"]
        by_id = {ev["id"]: ev for ev in run}
        vals = []
        for i in range(first, last + 1):
            ev = by_id.get(i)
            vals.append("0" if ev is None else "0x%04X" % (ev["flags"] << 8 | MODULES[ev["module"]]))
        o.append("  static const uint16_t r%d_[%d] = { %s }; /* ids %d..%d */\n"
                 % (k, len(vals), ", ".join(vals), first, last))
    for k, run in enumerate(runs):
        first = 0 if run[0]["id"] <= 4 else run[0]["id"]
        n = run[-1]["id"] - first + 1
        idx = "id" if first == 0 else "id - %du" % first
        o.append("  if (%s < %du)\n    return r%d_[%s];\n" % (idx, n, k, idx))
    o.append("  return 0;\n}\n\n")
    return "".join(o)


def gen_emitter(ev):
    n = lower(ev["name"])
    fields = ev["fields"]
    params = ", ".join("%s %s" % (CTYPES[f["type"]], f["name"]) for f in fields)
    args = ", ".join(f["name"] for f in fields)
    voids = " ".join("(void)%s;" % f["name"] for f in fields)
    nw = 1 + ev["words"]
    body = ["    uint32_t w_[%d];\n" % nw, "    w_[0] = ts;\n"]
    for wi in range(ev["words"]):
        parts = []
        for f in fields:
            if f["bits"] and f["word"] == wi:
                parts.append("(uint32_t)%s" % f["name"] if f["shift"] == 0
                             else "(uint32_t)%s << %d" % (f["name"], f["shift"]))
        body.append("    w_[%d] = %s;\n" % (wi + 1, " | ".join(parts)))
    body.append("    TW_TRACE_PUT(TW_EV_%s, w_, %d);\n" % (ev["name"], nw))
    cond = "TW_CFG_TRACE && TW_CFG_EV_%s" % ev["name"]
    doc = "/* %s: %s. Any context (ISR-safe), never blocks; a full ring counts a drop. */\n" % (ev["seed"], ev["doc"])
    pat = "uint32_t ts, " + params if params else "uint32_t ts"
    s = [doc]
    s.append("static inline void tw_%s_at(%s)\n{\n#if %s\n  if (TW_TRACE_ON(TW_EV_%s)) {\n"
             % (n, pat, cond, ev["name"]))
    s.extend(body)
    s.append("  }\n#else\n  (void)ts; %s\n#endif\n}\n" % voids)
    s.append("static inline void tw_%s(%s)\n{\n#if %s\n  if (TW_TRACE_ON(TW_EV_%s)) {\n"
             % (n, params or "void", cond, ev["name"]))
    if 1 <= ev["words"] <= 2:
        # the usual put: payload words in registers, the logger stamps it
        words = [w.split(" = ", 1)[1].rstrip(";\n") for w in body[2:-1]]
        words += ["0u"] * (2 - len(words))
        s.append("    TW_TRACE_PUT_NOW(TW_EV_%s, %d, %s, %s);\n"
                 % (ev["name"], ev["words"], words[0], words[1]))
    else:
        # the clock read by the put, once the space is taken (trace.h)
        s.append(body[0])
        s.append("    w_[0] = 0u;\n")
        s.extend(body[2:-1])
        s.append("    TW_TRACE_PUT_STAMPED(TW_EV_%s, w_, %d);\n" % (ev["name"], nw))
    s.append("  }\n#else\n  %s\n#endif\n}\n\n" % (voids or ""))
    return "".join(s).replace("#else\n  \n#endif", "#endif")


def gen_desc(events):
    o = [HEADER_NOTE]
    o.append("""/*
 * tw_event_descs[]: the vocabulary as data, sorted by id, and the lookups
 * declared in tracewire/vocab.h. Read-only; any context; freestanding.
 */
#include "tracewire/vocab.h"

/* Doc strings are for hosts (decoders, docs); a freestanding target build
 * drops them unless asked (they are most of this table's size). */
#ifndef TW_CFG_VOCAB_DOCS
#if defined(__STDC_HOSTED__) && __STDC_HOSTED__
#define TW_CFG_VOCAB_DOCS 1
#else
#define TW_CFG_VOCAB_DOCS 0
#endif
#endif
#if TW_CFG_VOCAB_DOCS
#define D(s) s
#else
#define D(s) ""
#endif

""")
    for ev in events:
        n = lower(ev["name"])
        if ev["fields"]:
            o.append("static const struct tw_field_desc %s_fields[] = {\n" % n)
            for f in ev["fields"]:
                o.append("  {%s, TW_FT_%s, %d, %d, %d, TW_OBJ_%s, D(%s)},\n"
                         % (c_str(f["name"]), f["type"], f["word"], f["shift"], f["bits"],
                            f["obj"], c_str(f["doc"])))
            o.append("};\n")
        if ev["enums"]:
            o.append("static const struct tw_enum_desc %s_enums[] = {\n" % n)
            for e in ev["enums"]:
                o.append("  {%s, %d, TW_MARKER_%s, D(%s)},\n"
                         % (c_str(e["name"]), e["value"], e["marker"], c_str(e["doc"])))
            o.append("};\n")
    o.append("\nconst struct tw_event_desc tw_event_descs[] = {\n")
    for ev in events:
        n = lower(ev["name"])
        flags = " | ".join("TW_EVF_%s" % k for k, v in sorted(FLAGS.items(), key=lambda kv: kv[1])
                           if ev["flags"] & v) or "0"
        o.append("  {%d, TW_MOD_%s, %s, %d, %d, %d, TW_MARKER_%s, %d,\n   %s, %s,\n   D(%s),\n   %s, %s},\n"
                 % (ev["id"], ev["module"], flags, len(ev["fields"]), ev["words"], ev["mindex"],
                    ev["marker"], len(ev["enums"]), c_str(ev["name"]), c_str(ev["seed"]),
                    c_str(ev["doc"]), "%s_fields" % n if ev["fields"] else "NULL",
                    "%s_enums" % n if ev["enums"] else "NULL"))
    o.append("};\nconst size_t tw_event_ndescs = sizeof tw_event_descs / sizeof tw_event_descs[0];\n\n")
    # the generator's name tables must follow vocab.h's enum order
    o.append("_Static_assert(TW_MARKER_COUNT == %d, \"gen_events.py MARKERS out of step with vocab.h\");\n"
             % len(MARKERS))
    o.append("_Static_assert(TW_OBJ_COUNT == %d, \"gen_events.py OBJS out of step with vocab.h\");\n"
             % len(OBJS))
    o.append("static const char *const marker_names[TW_MARKER_COUNT] = {\n  %s,\n};\n"
             % ", ".join(c_str(m) for m in MARKER_NAMES))
    o.append("static const char *const obj_kind_names[TW_OBJ_COUNT] = {\n  %s,\n};\n\n"
             % ", ".join(c_str(m) for m in OBJ_NAMES))
    o.append("""const struct tw_event_desc *tw_event_desc_by_id(uint16_t id)
{
  size_t lo = 0, hi = tw_event_ndescs;

  while (lo < hi) { /* sorted by id: binary search */
    size_t mid = lo + (hi - lo) / 2;
    if (tw_event_descs[mid].id == id)
      return &tw_event_descs[mid];
    if (tw_event_descs[mid].id < id)
      lo = mid + 1;
    else
      hi = mid;
  }
  return NULL;
}

static const struct tw_enum_desc *enum_by_value(const struct tw_event_desc *d, uint32_t v)
{
  for (uint8_t i = 0; d && i < d->nenums; i++)
    if (d->enums[i].value == v)
      return &d->enums[i];
  return NULL;
}

enum tw_marker tw_event_marker(const struct tw_event_desc *d, uint32_t marker_value)
{
  const struct tw_enum_desc *e = enum_by_value(d, marker_value);

  if (e)
    return e->marker;
  return d ? d->default_marker : TW_MARKER_NONE;
}

const char *tw_event_enum_name(const struct tw_event_desc *d, uint32_t value)
{
  const struct tw_enum_desc *e = enum_by_value(d, value);

  return e ? e->name : NULL;
}

const char *tw_marker_name(enum tw_marker m)
{
  return (unsigned)m < TW_MARKER_COUNT ? marker_names[m] : "?";
}

const char *tw_obj_kind_name(enum tw_obj_kind k)
{
  return (unsigned)k < TW_OBJ_COUNT ? obj_kind_names[k] : "?";
}
""")
    return "".join(o)


def gen_meaning(events):
    o = [HEADER_NOTE]
    o.append("""/*
 * tw_meanings[]: what each event does to the RTOS state model, from the
 * TW_MEANING rows of events.def, sorted by event id, a row for one
 * constant before the event's catch-all row (any = 1). Field indexes are
 * into the event's descriptor fields; -1 for none. Host only: the target
 * never needs it. Lookups are in meaning.c.
 */
#include "tracewire/model/meaning.h"

const struct tw_meaning tw_meanings[] = {
""")
    n = 0
    for ev in events:
        rows = sorted(ev["meanings"], key=lambda m: (m["value"] is None, m["value"] or 0))
        for m in rows:
            o.append("  {.id = TW_EV_%s, .any = %d, .value = %s, .act = TW_ACT_%s, "
                     ".obj_act = TW_OACT_%s,\n   .task_field = %d, .obj_field = %d, "
                     ".kind_field = %d, .value_field = %d, .obj_kind = TW_OBJ_%s, .row = %d,\n"
                     "   .task_src = TW_TASK_FROM_%s},\n"
                     % (ev["name"], m["value"] is None,
                        "0" if m["value"] is None else "TW_%s_%s" % (ev["name"], m["const"]),
                        m["act"], m["oact"], m["tfield"], m["ofield"], m["kfield"],
                        m["vfield"], m["okind"], n, m["src"]))
            n += 1
    o.append("};\nconst size_t tw_nmeanings = %d;\n\n" % n)
    o.append("static const char *const act_names[TW_ACT_COUNT] = {\n")
    for a in ACTS:
        o.append("  [TW_ACT_%s] = %s,\n" % (a, c_str(a.lower())))
    o.append("};\nstatic const char *const obj_act_names[TW_OACT_COUNT] = {\n")
    for a in OBJ_ACTS:
        o.append("  [TW_OACT_%s] = %s,\n" % (a, c_str(a.lower())))
    o.append("};\n\n")
    o.append("_Static_assert(TW_ACT_COUNT == %d, \"gen_events.py ACTS out of step with meaning.h\");\n"
             % len(ACTS))
    o.append("_Static_assert(TW_OACT_COUNT == %d, \"gen_events.py OBJ_ACTS out of step with meaning.h\");\n\n"
             % len(OBJ_ACTS))
    o.append("""const char *tw_act_name(enum tw_act a)
{
  return (unsigned)a < TW_ACT_COUNT ? act_names[a] : "?";
}

const char *tw_obj_act_name(enum tw_obj_act a)
{
  return (unsigned)a < TW_OACT_COUNT ? obj_act_names[a] : "?";
}
""")
    return "".join(o)


def gen_doc(events):
    o = ["<!-- GENERATED by tools/gen/gen_events.py from include/tracewire/events.def; do not edit. -->\n",
         "# Event reference\n\n",
         "Every event tracewire records, from `include/tracewire/events.def`. The wire id is the\n"
         "top 16 bits of a record's id word, the module id the bottom 16 bits. Ids 1..32 are\n"
         "also kernel-event-logger mask bits (bit id-1).\n\n",
         "Payload packing: after the 32-bit timestamp word of a TIMED event (in the logger;\n"
         "on the wire the record carries the extended 64-bit timestamp instead), fields are\n"
         "packed in order into 32-bit words from bit 0 of word 0, each aligned to its own\n"
         "width; a field that does not fit in the rest of a word starts the next one.\n"
         "STRING fields travel as snapshot data after the packed words.\n\n",
         "| id | event | seed name | module | flags | payload words |\n|---:|---|---|---|---|---:|\n"]
    for ev in events:
        flags = ", ".join(k for k, v in sorted(FLAGS.items(), key=lambda kv: kv[1]) if ev["flags"] & v)
        o.append("| %d (0x%X) | [%s](#%s) | %s | %s (%d) | %s | %d |\n"
                 % (ev["id"], ev["id"], ev["name"], lower(ev["name"]),
                    ev["seed"], ev["module"], MODULES[ev["module"]], flags, ev["words"]))
    o.append("\n")
    for ev in events:
        o.append("## %s\n\n" % ev["name"])
        o.append("%s. Id %d (0x%X), module %s (%d), seed name `%s`"
                 % (ev["doc"], ev["id"], ev["id"], ev["module"], MODULES[ev["module"]], ev["seed"]))
        if has_emitter(ev):
            args = ", ".join(f["name"] for f in ev["fields"])
            o.append("; emitter `tw_%s(%s)` (and `tw_%s_at(ts, ...)`), build option `TW_CFG_EV_%s`"
                     % (lower(ev["name"]), args, lower(ev["name"]), ev["name"]))
        o.append(".\n\n")
        if ev["fields"]:
            o.append("| field | type | word | bits | names | description |\n|---|---|---:|---|---|---|\n")
            for f in ev["fields"]:
                pos = "%d..%d" % (f["shift"], f["shift"] + f["bits"] - 1) if f["bits"] else "snapshot"
                word = str(f["word"]) if f["bits"] else "-"
                o.append("| `%s` | %s | %s | %s | %s | %s |\n"
                         % (f["name"], f["type"], word, pos, OBJ_NAMES[OBJS.index(f["obj"])]
                            if f["obj"] != "NONE" else "", f["doc"]))
            o.append("\n")
        if ev["mfield"] is not None:
            dm = MARKER_NAMES[MARKERS.index(ev["marker"])]
            o.append("Marker chosen by `%s`; default marker: %s.\n\n" % (ev["mfield"], dm))
        anym = [m for m in ev["meanings"] if m["value"] is None]
        if anym:
            o.append("State model (docs/model.md): %s.\n\n" % model_text(anym[0]))
        if ev["enums"]:
            o.append("| constant | C name | value | marker | state model | meaning |\n"
                     "|---|---|---:|---|---|---|\n")
            for e in ev["enums"]:
                val = "0x%X" % e["value"] if e["value"] > 255 else "%d" % e["value"]
                mm = [m for m in ev["meanings"] if m["value"] == e["value"]]
                o.append("| %s | `TW_%s_%s` | %s | %s | %s | %s |\n"
                         % (e["name"], ev["name"], e["name"], val,
                            MARKER_NAMES[MARKERS.index(e["marker"])],
                            model_text(mm[0]) if mm else "", e["doc"]))
            o.append("\n")
    return "".join(o)


def model_text(m):
    parts = [p.lower() for p in (m["act"], m["oact"]) if p != "NONE"]
    return " + ".join("`%s`" % p for p in parts) if parts else "nothing"


OUTPUTS = [("include/tracewire/events_gen.h", gen_header),
           ("src/common/events_desc.c", gen_desc),
           ("src/model/meaning_gen.c", gen_meaning),
           ("docs/events.md", gen_doc)]


def main(argv):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=os.path.normpath(os.path.join(here, "..", "..")))
    ap.add_argument("--out", default=None)
    ap.add_argument("--check", action="store_true")
    a = ap.parse_args(argv)
    out = a.out or a.root
    try:
        events = parse(os.path.join(a.root, "include", "tracewire", "events.def"))
    except (DefError, OSError) as e:
        print("gen_events.py: %s" % e, file=sys.stderr)
        return 2
    stale = []
    for rel, fn in OUTPUTS:
        text = fn(events)
        path = os.path.join(out, rel)
        try:
            with open(path, encoding="utf-8") as f:
                old = f.read()
        except OSError:
            old = None
        if old == text:
            continue
        if a.check:
            stale.append(rel)
            continue
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        print("gen_events.py: wrote %s" % rel)
    if stale:
        for rel in stale:
            print("gen_events.py: %s is stale (regenerate: cmake --build <dir> --target gen)" % rel,
                  file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
