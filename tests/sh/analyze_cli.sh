#!/usr/bin/env bash
# `tracewire analyze` end to end (scripted trace -> UIA packets -> decoder ->
# model -> analysis plugin): the JSON has the planted findings with their
# exact windows and the DROPS gap, the text names them, a clean trace has
# no findings, the same plugin as libanalysis.so under `tracewire run`
# agrees, and bad options are refused with exit status 2.
set -euo pipefail
B=$1
tw=$B/tools/tracewire
scn=$B/examples/scenario/tw-scenario
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || fail "python3 needed (Debian package: python3)"

"$scn" --cycles 12 --inversion 4 --drops 4 --deadlock -o "$tmp/d.uia"
"$tw" analyze --json "$tmp/d.uia" > "$tmp/d.json" || fail "analyze --json exit $?"
python3 - "$tmp/d.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
f = r["findings"]
inv = [x for x in f if x["kind"] == "priority_inversion"]
dl = [x for x in f if x["kind"] == "deadlock"]
assert len(inv) == 1 and len(dl) == 1, [x["kind"] for x in f]
i = inv[0]
# the DROPS at 5 ms makes every state unknown (docs/model.md): the episode
# ends at the gap, flagged
assert (i["t0"], i["t1"], i["ns"]) == (4072000, 5000000, 928000), i
assert [t["name"] for t in i["tasks"][:2]] == ["control", "logger"], i["tasks"]
assert i["objects"][0]["name"] == "bus_lock" and i["across_gap"] is True
assert [t["name"] for t in dl[0]["tasks"]] == ["comms", "ui"]
assert sorted(x["tasks"][0]["name"] for x in f if x["kind"] == "blocked_at_end") == \
    ["comms", "control", "sensor", "ui"]
assert r["loss"]["ring_drops"] == 7 and r["loss"]["gaps"][0]["t"] == 5000000
c = r["cores"][0]
assert c["name"] == "board.cpu0" and c["max_nesting"] == 2
assert r["mutexes"][0]["name"] == "bus_lock" and r["mutexes"][0]["rank"] == 1  # most contended
ctl = [t for t in c["tasks"] if t["name"] == "control"][0]
assert ctl["prio"] == 8 and ctl["release_latency"]["min"] == 12000
comms = [t for t in c["tasks"] if t["name"] == "comms"][0]
# the UART interrupt (30 us) preempts comms in each of the 11 clean cycles
assert comms["state_ns"]["in_interrupt"] == 11 * 30000, comms["state_ns"]
assert ctl["state_ns"]["in_interrupt"] == 0
assert sum(t["cpu_ns"] for t in c["tasks"]) + c["isr_ns"] + c["untraced_ns"] == c["duration_ns"]
kinds = {o["kind"] for o in r["objects"]}
assert kinds == {"sem", "event", "msem", "mevent", "asem", "rsem"}, kinds
print("analyze --json: findings, windows, loss, ranking ok")
PY

"$tw" analyze "$tmp/d.uia" > "$tmp/d.txt"
grep -q '^  priority_inversion: control blocked on bus_lock held by lower-priority logger' "$tmp/d.txt" ||
  fail "text lacks the inversion"
grep -q 'events were lost in this window' "$tmp/d.txt" || fail "text does not flag the gap"
grep -q '^  deadlock: wait-for cycle: comms waits for log_lock held by ui' "$tmp/d.txt" ||
  fail "text lacks the deadlock"

"$scn" --cycles 8 -o "$tmp/c.uia"
"$tw" analyze "$tmp/c.uia" > "$tmp/c.txt"
grep -q '^== findings: 0$' "$tmp/c.txt" || fail "clean trace has findings"

# The plugin as a shared library through `tracewire run`.
"$tw" run "$tmp/d.uia" --plugin "$B/examples/plugins/libanalysis.so@an" \
  --param TRACE.an.json=1 --param TRACE.an.starve_ms=1 > "$tmp/run.json"
python3 - "$tmp/run.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
k = sorted(x["kind"] for x in r["findings"])
assert k.count("starvation") == 1 and k.count("priority_inversion") == 1, k
assert r["starve_ns"] == 1000000
PY

set +e
"$tw" analyze --starve-ms 0 "$tmp/d.uia" >/dev/null 2>&1; [ $? -eq 2 ] || fail "--starve-ms 0 accepted"
"$tw" analyze >/dev/null 2>&1; [ $? -eq 2 ] || fail "no trace accepted"
"$tw" report "$tmp/d.uia" >/dev/null 2>&1; [ $? -eq 2 ] || fail "report without -o accepted"
"$tw" analyze "$tmp/missing.uia" >/dev/null 2>&1; [ $? -eq 1 ] || fail "missing file not an error"
set -e
echo "analyze CLI ok"
