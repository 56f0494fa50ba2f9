#!/usr/bin/env python3
"""What the recording stack costs a Cortex-M4 (-Os), in three configurations,
as linked into a program (`make size`, via scripts/cross.sh; the method is
in docs/performance.md): minimal (direct recording), streamed (the event
logger ring, the minimal streamer, its packets, one RTT channel; the same
program as minimal) and full (the defaults).

    size_configs.py [--out DIR] [--markdown]

Each configuration compiles every target source (src/common, src/target,
src/port/cortex-m) and bench/target/size_app.c, the smallest program that
records and streams, and links them with --gc-sections, so only what the
program reaches counts. From the linker's map:

  text    code and constants of the stack's objects (the application's own
          code, the inlined emitters included, is not counted); what they
          pull from the C library and libgcc is shown apart
  RAM     the stack's own variables and the RTT control block, i.e. what it
          costs beside the buffers whose size the user picks: the event
          ring, the name table, the streamer's packet and event buffers, the
          RTT channel buffers (each listed)

Budgets (the minimal configuration): text <= 2048 bytes, RAM <= 300 bytes.
Exit status 1 above either. The streamed configuration has none: it does
not fit 2 KiB (docs/performance.md says what its bytes buy). Stdlib only.
"""
import argparse
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CC = os.environ.get("CROSS_CC", "arm-none-eabi-gcc")
FLAGS = ["-std=c11", "-mcpu=cortex-m4", "-mthumb", "-Os", "-ffreestanding", "-ffunction-sections",
         "-fdata-sections", "-Wall", "-Wextra", "-Werror", "-Wshadow", "-Wstrict-prototypes",
         "-Wmissing-prototypes", "-Wno-missing-field-initializers", "-Iinclude", "-Isrc"]
CONFIGS = [
    ("minimal", "direct recording into one RTT channel, kernel/RTOS events, names; "
                "no command service, no custom events",
     ["-DTW_CFG_DIRECT=1", "-DTW_CFG_CUSTOM_DECLS=0", "-DTW_CFG_MIN_EVENT_PKT=1", "-DTW_CFG_NAMES=8"]),
    ("streamed", "the same through the event logger ring, the minimal streamer and its packets "
                 "into one RTT channel; no command service, no custom events",
     ["-DTW_CFG_STREAMER_MINIMAL=1", "-DTW_CFG_LOGGER_WAKE=0", "-DTW_CFG_CUSTOM_DECLS=0",
      "-DTW_CFG_MIN_EVENT_PKT=1", "-DTW_CFG_NAMES=8"]),
    ("full", "event logger ring, streamer, command service, custom events, kernel hooks, "
             "RTT up and down channels (the defaults)", []),
]
BUDGET_TEXT, BUDGET_RAM = 2048, 300
# buffers: (object, section symbol) -> what it is; sized by the user's configuration
BUFFERS = {
    ("kernel_event_logger.o", "ring"): "event ring (TW_CFG_KLOG_CAPACITY words)",
    ("trace.o", "names"): "name table (TW_CFG_NAMES x TW_CFG_NAME_MAX)",
    ("trace.o", "decls"): "custom declarations (TW_CFG_CUSTOM_DECLS)",
    ("size_app.o", "up_buf"): "RTT up channel buffer",
    ("size_app.o", "down_buf"): "RTT down channel buffer",
}


def sources():
    out = []
    for d in ("src/common", "src/target", "src/port/cortex-m"):
        out += sorted(os.path.join(d, f) for f in os.listdir(os.path.join(ROOT, d)) if f.endswith(".c"))
    return out + ["bench/target/size_app.c"]


def build(name, defs, out):
    d = os.path.join(out, name)
    os.makedirs(d, exist_ok=True)
    objs = []
    for src in sources():
        o = os.path.join(d, os.path.basename(src)[:-2] + ".o")
        subprocess.run([CC] + FLAGS + defs + ["-c", src, "-o", o], cwd=ROOT, check=True)
        objs.append(o)
    elf, mp = os.path.join(d, "app.elf"), os.path.join(d, "app.map")
    subprocess.run([CC, "-mcpu=cortex-m4", "-mthumb", "-nostartfiles", "--specs=nano.specs",
                    "--specs=nosys.specs", "-Wl,--gc-sections", "-Wl,-Map," + mp,
                    "-T", "bench/target/size.ld"] + objs + ["-o", elf], cwd=ROOT, check=True)
    return mp


SEC = re.compile(r"^ (\.[\w.$]+|COMMON)\s*$")
LINE = re.compile(r"^ (\.[\w.$]+|COMMON)?\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(\S+)")


def parse_map(path):
    """[(section, size, object)] of the input sections placed in memory."""
    out, pending, on = [], None, False
    with open(path) as f:
        for ln in f:
            if ln.startswith("Linker script and memory map"):
                on = True
                continue
            if not on:
                continue
            m = SEC.match(ln)
            if m:
                pending = m.group(1)
                continue
            m = LINE.match(ln)
            if m:
                sec = m.group(1) or pending
                pending = None
                size = int(m.group(3), 16)
                if sec and size and int(m.group(2), 16):
                    out.append((sec, size, m.group(4)))
    return out


def kind(sec):
    if sec.startswith((".text", ".rodata")):
        return "text"
    if sec.startswith(".data"):
        return "data"
    if sec.startswith((".bss", "COMMON")):
        return "bss"
    return None


def measure(mp, defs):
    stack = {}
    lib = 0
    ram, buffers = [], []
    for sec, size, obj in parse_map(mp):
        k = kind(sec)
        if not k:
            continue
        base = os.path.basename(obj)
        sym = sec.split(".", 2)[2] if sec.count(".") >= 2 else sec
        if base == "size_app.o":
            if k != "text" and (base, sym) in BUFFERS:
                buffers.append((BUFFERS[(base, sym)], size))
            elif k != "text" and sym == "rtt":
                ram.append(("RTT control block", size))
            elif k != "text" and sym == "tw_size_streamer":
                bufs = STREAMER_BUFS if "-DTW_CFG_STREAMER_MINIMAL=1" not in defs else STREAMER_PKT
                buffers.append(("streamer packet + event buffers" if bufs == STREAMER_BUFS
                                else "streamer packet buffer", bufs))
                ram.append(("streamer state (struct tw_streamer)", size - bufs))
            elif k != "text" and sym == "cmd":
                ram.append(("command service state", size))
            continue
        if not obj.endswith(".o") or "/lib" in obj:
            lib += size if k == "text" else 0
            continue
        s = stack.setdefault(base, {"text": 0, "data": 0, "bss": 0})
        s[k] += size
        if k != "text":
            if (base, sym) in BUFFERS:
                buffers.append((BUFFERS[(base, sym)], size))
            else:
                ram.append((base[:-2] + " " + sym, size))
    return stack, lib, ram, buffers


STREAMER_PKT = 128  # TW_CFG_MAX_PKT_BYTES (default)
STREAMER_BUFS = STREAMER_PKT + 255 * 4  # and TW_EVENT_MAX_DATA words: the general streamer's


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default=os.path.join(ROOT, "build-arm-size"))
    ap.add_argument("--markdown", action="store_true")
    a = ap.parse_args(argv)
    results = []
    for name, what, defs in CONFIGS:
        stack, lib, ram, buffers = measure(build(name, defs, a.out), defs)
        results.append((name, what, stack, lib, ram, buffers))
    status = 0
    if a.markdown:
        print("| configuration (Cortex-M4, -Os, linked) | text | RAM beside buffers | buffers | C library |")
        print("|---|---:|---:|---|---:|")
    for name, what, stack, lib, ram, buffers in results:
        text = sum(s["text"] for s in stack.values())
        ramb = sum(v for _, v in ram)
        bufs = ", ".join("%s %d" % (n, v) for n, v in buffers)
        if a.markdown:
            print("| %s: %s | %d | %d | %s | %d |" % (name, what, text, ramb, bufs, lib))
            continue
        print("%s configuration: %s" % (name, what))
        print("  text %5d bytes%s   (C library and libgcc beside it: %d)"
              % (text, "  (budget %d)" % BUDGET_TEXT if name == "minimal" else "", lib))
        for obj in sorted(stack, key=lambda o: -stack[o]["text"]):
            if stack[obj]["text"]:
                print("         %5d  %s" % (stack[obj]["text"], obj[:-2]))
        print("  RAM  %5d bytes beside the buffers%s"
              % (ramb, "  (budget %d)" % BUDGET_RAM if name == "minimal" else ""))
        for n, v in sorted(ram, key=lambda x: -x[1]):
            print("         %5d  %s" % (v, n))
        print("  buffers (sized by configuration): %s" % (bufs or "none"))
        if name == "minimal" and (text > BUDGET_TEXT or ramb > BUDGET_RAM):
            print("size: FAIL: the minimal configuration takes %d bytes of text (budget %d) and %d "
                  "bytes of RAM beside its buffers (budget %d)" % (text, BUDGET_TEXT, ramb, BUDGET_RAM),
                  file=sys.stderr)
            status = 1
    if not a.markdown and status == 0:
        print("size: OK (minimal configuration within %d bytes of text and %d of RAM)" % (BUDGET_TEXT, BUDGET_RAM))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
