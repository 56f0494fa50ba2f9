#!/usr/bin/env bash
# `make run` in CI: scripts/run-demo.sh for the demo scenario and the
# deadlock scenario (fixed seed), each in under a minute, and:
#  - no step skipped (export, report and summary all exist in this build);
#  - the summary equals tests/golden/demo-summary-<scenario>.txt, the known
#    numbers for the fixed seed (events, drops by cause, CPU load per task,
#    findings);
#  - it agrees with the model's own account (tw-demo-target's stderr):
#    events emitted = events in the trace + ring drops, exactly; each
#    task's CPU load within 2 points (the model's span runs to the end of
#    the scenario, the trace's to its last event) of what the trace says:
#    its share, up to its share plus the time the trace cannot attribute
#    ("not known": after lost events the running task is unknown until the
#    next switch, docs/model.md);
#  - the artifacts are there: babeltrace2 reads the CTF (every record), the
#    Perfetto file and the report are not empty.
# After an intended change of the model, the streamer or the analyses,
# regenerate the goldens with
#   TW_UPDATE_GOLDEN=1 bash tests/sh/demo_summary.sh build .
# and say why in the commit.
# Args: build dir, source dir.
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "demo_summary: FAIL: $*" >&2; exit 1; }
. "$src/tests/perfetto_validate.sh"

for sc in demo deadlock; do
  out=$tmp/$sc
  start=$(date +%s%N)
  SCENARIO=$sc SEED=1 OUT=$out bash "$src/scripts/run-demo.sh" "$build" > "$tmp/$sc.txt" 2>&1 ||
    { rc=$?; cat "$tmp/$sc.txt" >&2; fail "$sc: run-demo.sh exited $rc"; }
  ms=$(( ($(date +%s%N) - start) / 1000000 ))
  [ "$ms" -lt 60000 ] || fail "$sc: the demo took $ms ms (limit: a minute)"
  ! grep -q "skipped:" "$tmp/$sc.txt" || fail "$sc: $(grep 'skipped:' "$tmp/$sc.txt")"

  golden=$src/tests/golden/demo-summary-$sc.txt
  if [ "${TW_UPDATE_GOLDEN:-}" = 1 ]; then
    cp "$out/summary.txt" "$golden"
    echo "demo_summary: rewrote $golden"
  fi
  diff -u "$golden" "$out/summary.txt" >&2 ||
    fail "$sc: the summary differs from $golden (see the comment at the top to regenerate)"

  # the model's own account, from tw-demo-target's stderr
  read -r emitted dropped < <(sed -n \
    's/^tw-demo-target: .* \([0-9]*\) events emitted, [0-9]* taken, \([0-9]*\) dropped.*/\1 \2/p' \
    "$out/target.log")
  [ -n "${emitted:-}" ] || fail "$sc: no model account in target.log: $(cat "$out/target.log")"
  events=$(sed -n 's/^events *\([0-9]*\) kernel.*/\1/p' "$out/summary.txt")
  ring=$(sed -n 's/^drops .* ring overflow \([0-9]*\) .*/\1/p' "$out/summary.txt")
  [ "$ring" -eq "$dropped" ] || fail "$sc: summary says $ring ring drops, the model $dropped"
  [ $((events + ring)) -eq "$emitted" ] ||
    fail "$sc: $events events + $ring drops in the trace, $emitted emitted by the model"
  grep '^  task' "$out/target.log" | awk '{ sub(/%/, "", $7); print $3, $7 }' | sort > "$tmp/model"
  sed -n 's/^ \{12\}\([A-Za-z0-9_]*\) *\([0-9.]*\)%.*/\1 \2/p' "$out/summary.txt" | sort > "$tmp/trace"
  [ "$(wc -l < "$tmp/model")" -gt 0 ] && [ "$(wc -l < "$tmp/model")" -eq "$(wc -l < "$tmp/trace")" ] ||
    fail "$sc: tasks differ: model $(tr '\n' ' ' < "$tmp/model"), trace $(tr '\n' ' ' < "$tmp/trace")"
  unknown=$(sed -n 's/^CPU load .* not known \([0-9.]*\)%.*/\1/p' "$out/summary.txt")
  join "$tmp/model" "$tmp/trace" | awk -v sc="$sc" -v u="${unknown:-0}" '
    { lo = $3 - 2.0; hi = $3 + u + 2.0
      if ($2 < lo || $2 > hi) { bad = 1; print sc ": " $1 " model " $2 "%, trace " $3 "% (+" u "% not known)" } }
    END { exit bad }' >&2 || fail "$sc: CPU load per task disagrees with the model"

  # the artifacts
  for f in ctf/metadata trace.perfetto-trace report.html; do
    [ -s "$out/$f" ] || fail "$sc: $out/$f missing or empty"
  done
  # the Perfetto file: Perfetto's protos and rules, switches per task as analyze
  perfetto_validate "$src" "$build/tools/tracewire" "$out/trace.perfetto-trace" "$out/trace.twt" >&2 ||
    fail "$sc: the Perfetto export fails tests/perfetto_check.py"
  if command -v babeltrace2 >/dev/null; then
    records=$(babeltrace2 "$out/ctf" 2>/dev/null | wc -l)
    control=$(sed -n 's/^events .* and \([0-9]*\) control records.*/\1/p' "$out/summary.txt")
    [ "$records" -eq $((events + control)) ] ||
      fail "$sc: babeltrace2 reads $records records from the CTF, the trace has $((events + control))"
  elif [ "${CI:-}" = true ]; then
    fail "babeltrace2 not found (Debian package: babeltrace2)"
  else
    echo "demo_summary: babeltrace2 not found, CTF not read back (Debian package: babeltrace2)" >&2
  fi
  echo "demo_summary: $sc: $events events, $ring ring drops, summary as known, ${ms} ms"
done
