#!/usr/bin/env bash
# `tracewire summary` stays short on any trace (docs/cli.md, "summary"):
# on a synthetic trace with thousands of findings on eight cores it prints
# a bounded number of lines, the findings as groups (each with how often),
# and says what it left out; `analyze` lists every group, `analyze --json`
# every instance.
set -euo pipefail
B=$1
tw=$B/tools/tracewire
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "summary_bounded: FAIL: $*" >&2; exit 1; }

"$tw" synth --bytes 8M --switches --instances 2 --endpoints 4 -o "$tmp/x.raw" 2>/dev/null
"$tw" summary "$tmp/x.raw" > "$tmp/s.txt" 2> "$tmp/s.err" || fail "summary exit $?: $(cat "$tmp/s.err")"
lines=$(wc -l < "$tmp/s.txt")
[ "$lines" -le 100 ] || fail "$lines lines (bound: 100)"
nf=$(sed -n 's/^findings  \([0-9]*\) in \([0-9]*\) groups.*/\1/p' "$tmp/s.txt")
ng=$(sed -n 's/^findings  \([0-9]*\) in \([0-9]*\) groups.*/\2/p' "$tmp/s.txt")
[ -n "$nf" ] && [ "$nf" -gt 1000 ] || fail "expected thousands of findings: $(grep '^findings' "$tmp/s.txt")"
[ "$ng" -gt 12 ] || fail "expected more than 12 groups, got $ng"
[ "$(grep -c ' times ' "$tmp/s.txt")" -ge 1 ] || fail "no group with a count"
grep -q "^            \.\.\. $((ng - 12)) more groups" "$tmp/s.txt" || fail "does not say how many groups it left out"
grep -q '^CPU load  \.\.\. 4 more cores' "$tmp/s.txt" || fail "does not say how many cores it left out"

"$tw" analyze "$tmp/x.raw" > "$tmp/a.txt" 2>/dev/null
grep -q "^== findings: $nf in $ng groups" "$tmp/a.txt" || fail "analyze: $(grep '^== findings' "$tmp/a.txt")"
[ "$(sed -n '/^== findings/,/^== loss/p' "$tmp/a.txt" | grep -c '^  ')" -eq "$ng" ] || fail "analyze: not one line per group"
"$tw" analyze --json "$tmp/x.raw" > "$tmp/a.json" 2>/dev/null
python3 - "$tmp/a.json" "$nf" "$ng" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
nf, ng = int(sys.argv[2]), int(sys.argv[3])
assert len(r["findings"]) == nf == r["findings_total"], (len(r["findings"]), nf)
assert len(r["finding_groups"]) == ng
count = [0] * ng
for f in r["findings"]:
    count[f["group"]] += 1
for g, c in zip(r["finding_groups"], count):
    assert g["count"] == c, (g["count"], c)
    w = r["findings"][g["worst_index"]]
    assert w == g["worst"] | {"group": w["group"]}, (w, g["worst"])
    assert max(f["ns"] for f in r["findings"] if f["group"] == r["finding_groups"].index(g)) == w["ns"]
PY
echo "summary_bounded: $lines lines for $nf findings in $ng groups; analyze lists every group, --json every instance"
