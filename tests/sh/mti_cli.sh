#!/usr/bin/env bash
# `tracewire sources` and `tracewire run` on a synthetic two-core trace:
# the components and sources listed, plugin output that agrees with
# `tracewire print`, and refusals (bad parameter, ABI-mismatched plugin)
# with exit status 2 and a message.
set -euo pipefail
B=$1
tw=$B/tools/tracewire
pl=$B/examples/plugins
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$tw" synth -o "$tmp/t.bin" --packets 40 --instances 2 2>/dev/null

"$tw" sources "$tmp/t.bin" > "$tmp/src.txt"
grep -q '^component board.cpu0 (tracewire.core' "$tmp/src.txt" || fail "no board.cpu0"
grep -q '^component board.cpu1 (tracewire.core' "$tmp/src.txt" || fail "no board.cpu1"
grep -q '^  source [0-9]* MUTEX: ' "$tmp/src.txt" || fail "no MUTEX source"
grep -q '^  source [0-9]* TASKS: ' "$tmp/src.txt" || fail "no TASKS source"
grep -q '^      0x4 Block \[UpBlock\]' "$tmp/src.txt" || fail "no enum constant with marker"
# The custom kind the synthetic target declares is a source of every core.
ncustom=$(grep -c '(declared in-band)' "$tmp/src.txt" || true)
[ "$ncustom" -eq 2 ] || fail "custom source on $ncustom components, want 2"

# Every MUTEX event once, with the fields the mask selects, in time order.
"$tw" run "$tmp/t.bin" --plugin "$pl/libfieldprint.so@fp" \
  --param TRACE.fp.sources=MUTEX --param TRACE.fp.mask=0x4 > "$tmp/run.txt"
want=$("$tw" print "$tmp/t.bin" --filter event=MUTEX | wc -l)
got=$(grep -c '^fp board.cpu[01] MUTEX type=[A-Za-z]*$' "$tmp/run.txt")
[ "$want" -gt 0 ] && [ "$got" -eq "$want" ] || fail "fieldprint: $got MUTEX lines, print has $want"
# Same sequence of types as print shows.
diff <("$tw" print "$tmp/t.bin" --filter event=MUTEX | sed -n 's/.*type = \([A-Za-z]*\).*/\1/p') \
     <(sed -n 's/.*type=//p' "$tmp/run.txt") || fail "MUTEX types differ from print"

# Two instances of one plugin, each with its own parameters.
"$tw" run "$tmp/t.bin" --plugin "$pl/libswitches.so" --plugin "$pl/libswitches.so@b" \
  --param TRACE.switches.file="$tmp/a.txt" --param TRACE.b.file="$tmp/b.txt" >/dev/null
nsw=$("$tw" print "$tmp/t.bin" --filter event=TASK_SWITCH | wc -l)
sum=$(awk '/ switches,/ {s += $3} END {print s+0}' "$tmp/a.txt")
[ "$sum" -eq "$nsw" ] || fail "switches counted $sum, print shows $nsw"
sed 's/^b /switches /' "$tmp/b.txt" | diff - "$tmp/a.txt" || fail "instances disagree"

set +e
"$tw" run "$tmp/t.bin" --plugin "$pl/libswitches.so" --param TRACE.switches.min=-1 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "out-of-range parameter: exit $rc, want 2"
grep -q "out of range" "$tmp/err" || fail "no range message: $(cat "$tmp/err")"

set +e
"$tw" run "$tmp/t.bin" --plugin "$pl/libabi_mismatch.so" 2>"$tmp/err"
rc=$?
set -e
[ $rc -eq 2 ] || fail "ABI-mismatched plugin: exit $rc, want 2"
grep -q "refusing to load it" "$tmp/err" || fail "no refusal message: $(cat "$tmp/err")"
echo "mti_cli: ok"
