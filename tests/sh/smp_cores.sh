#!/usr/bin/env bash
# SMP end to end on the target code (TW_CFG_CORES=2, tests/smp/smp_target.c):
# two threads play two cores, each recording into its own ring, one
# streamer per core (instance = core); the host decodes both streams and
# every event keeps its core: CSV's core column, the mutex each core uses,
# a task that migrates shows on both cores (in CSV, and in the analyses,
# each core's share of it), names (sent by core 0's streamer) resolve on
# core 1's events too; the exports that draw cores accept it.
# Args: build dir, source dir.
set -euo pipefail
B=$1
tw=$B/tools/tracewire
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || {
  echo "smp_cores.sh: python3 not found (Debian: python3)" >&2
  [ "${CI:-}" = true ] && exit 1 || exit 77
}

"$B/tests/tw-smp-target" "$tmp/smp.bin" > "$tmp/target.log" || fail "tw-smp-target"
grep -q '^core 0: 400 events, 0 dropped$' "$tmp/target.log" || fail "core 0: $(cat "$tmp/target.log")"
grep -q '^core 1: 400 events, 0 dropped$' "$tmp/target.log" || fail "core 1: $(cat "$tmp/target.log")"
"$tw" export -q "$tmp/smp.bin" -f csv -o "$tmp/csv"
csv=$tmp/csv
# time_ns,endpoint,core,seq,time_inferred,task,mutex,type,marker: core c locks mutex c + 1
awk -F, 'NR > 1 { n[$3]++; if ($7 != $3 + 1) bad++ } END { exit !(n[0] == 200 && n[1] == 200 && !bad) }' \
  "$csv/MutexEvent.csv" || fail "MutexEvent rows not 200 per core, each on its own core's mutex"
# time_ns,endpoint,core,seq,time_inferred,task,marker: the migrant (3) on both cores, the others on theirs
awk -F, 'NR > 1 { if ($6 == 3) m[$3]++; if ($6 == 10 && $3 != 0) bad++; if ($6 == 11 && $3 != 1) bad++ }
         END { exit !(m[0] > 0 && m[1] > 0 && !bad) }' "$csv/TaskSwitch.csv" ||
  fail "TaskSwitch: the migrant should run on both cores, the others on their own"
"$tw" print "$tmp/smp.bin" > "$tmp/print.txt"
grep -q '0051/1 TaskSwitch: { task = 3 "migrant" }' "$tmp/print.txt" ||
  fail "core 1's events do not resolve the names core 0's streamer sent"
# the analyses per core: each core's time adds up; the migrant is listed on
# both cores with its share of each, the others on their own only
"$tw" analyze --json "$tmp/smp.bin" > "$tmp/an.json" || fail "tracewire analyze --json"
python3 - "$tmp/an.json" <<'PY' || fail "the analyses do not keep the cores apart"
import json, sys
d = json.load(open(sys.argv[1]))
on = {}
for c in d["cores"]:
    total = sum(t["cpu_ns"] for t in c["tasks"]) + c["isr_ns"] + c["untraced_ns"]
    assert total == c["duration_ns"], (c["core"], total, c["duration_ns"])
    for t in c["tasks"]:
        on.setdefault(t["name"], {})[c["core"]] = t
assert sorted(on["migrant"]) == [0, 1], on["migrant"]
assert all(t["cpu_ns"] > 0 and t["switches_in"] == 50 for t in on["migrant"].values()), on["migrant"]
assert sorted(on["stays0"]) == [0] and sorted(on["stays1"]) == [1], on
PY
"$tw" export -q "$tmp/smp.bin" -f perfetto -o "$tmp/t.perfetto-trace"
. "$2/tests/perfetto_validate.sh"
perfetto_validate "$2" "$tw" "$tmp/t.perfetto-trace" "$tmp/smp.bin" > "$tmp/pf.txt" ||
  fail "the Perfetto export fails tests/perfetto_check.py: $(cat "$tmp/pf.txt")"
grep -q "2 cpus" "$tmp/pf.txt" || ! [ -f "${TW_PERFETTO_PROTO:-}" ] ||
  fail "the Perfetto export does not have the two cores as two CPUs: $(cat "$tmp/pf.txt")"
"$tw" export -q "$tmp/smp.bin" -f json -o "$tmp/t.json"
grep -q '"cpu1"\|cpu1' "$tmp/t.json" || fail "the JSON timeline has no cpu1"
# a full name table is reported in the trace and by `tracewire info`
"$B/tests/tw-smp-target" "$tmp/full.bin" --fill-names > "$tmp/full.log" || fail "tw-smp-target --fill-names"
lost=$(sed -n 's/^names lost: //p' "$tmp/full.log")
[ -n "$lost" ] && [ "$lost" -gt 0 ] || fail "the name table did not fill: $(cat "$tmp/full.log")"
"$tw" info "$tmp/full.bin" > "$tmp/info.txt" 2>&1 || true
grep -q "^names lost: $lost: " "$tmp/info.txt" || { cat "$tmp/info.txt" >&2; fail "tracewire info does not say names lost: $lost"; }
echo "smp_cores.sh: two cores' rings and streams; every event kept its core; the migrant ran on both"
