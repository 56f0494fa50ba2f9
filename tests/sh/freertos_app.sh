#!/usr/bin/env bash
# `make run RTOS=freertos` end to end: the FreeRTOS application
# (examples/freertos-posix, the real kernel's POSIX port) records over
# loopback TCP, then CTF, Perfetto, report and summary, and:
#   - every count the application kept of what it did equals the number
#     of such events in the trace, exactly (freertos_counts.py);
#   - the ring drops the trace announces equal the logger's own count;
#   - the summary finds the planted inversion through res_bsem, the
#     inversion through res_mutex that inheritance bounds, and the
#     deadlock of dl_a and dl_b, and no starvation and no task blocked at
#     the end that the application did not cause (only dl_a and dl_b, and
#     the collector and timer daemon waiting for work). This part needs the
#     RTOS state model to give the FreeRTOS events a meaning (issue 15:
#     TW_MEANING rows for TASK, QUEUE, ... in events.def); until then it
#     prints what the summary says and that it is PENDING.
# TARGET=qemu (tests/sh/freertos_qemu.sh) runs the same checks on the
# Cortex-M3 build under QEMU.
# Args: build dir, source dir.
set -euo pipefail
B=$1
S=$2
kind=${TARGET:-host}
app=$B/examples/freertos-posix/tw-freertos-app
if [ ! -x "$app" ]; then
  echo "freertos_app.sh: SKIPPED: no FreeRTOS kernel (configure with -DFREERTOS_KERNEL_PATH=...;" \
       "tests/sh/freertos_kernel.sh says more)" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi
command -v python3 >/dev/null || {
  echo "freertos_app.sh: python3 not found (Debian: python3)" >&2
  [ "${CI:-}" = true ] && exit 1 || exit 77
}
# a sanitized build: see tests/freertos/sanitizers.supp
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}use_sigaltstack=0
export LSAN_OPTIONS=${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$S/tests/freertos/sanitizers.supp
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
out=$tmp/out
fail() { echo "FAIL: $*" >&2; exit 1; }

# absolute build dir: run-demo.sh runs from the source dir
case $B in /*) ;; *) B=$PWD/$B ;; esac
(cd "$S" && RTOS=freertos TARGET=$kind OUT="$out" bash scripts/run-demo.sh "$B") > "$tmp/run.log" 2>&1 ||
  { cat "$tmp/run.log" >&2; fail "make run RTOS=freertos (TARGET=$kind) failed"; }
for f in trace.twt ctf/metadata trace.perfetto-trace report.html summary.txt target.log; do
  [ -s "$out/$f" ] || fail "$f missing or empty"
done

"$B/tools/tracewire" print "$out/trace.twt" > "$tmp/print.txt" 2> "$tmp/print.err" ||
  { cat "$tmp/print.err" >&2; fail "tracewire print"; }
python3 "$S/tests/sh/freertos_counts.py" "$tmp/print.txt" "$out/target.log" ||
  fail "the trace does not show exactly what the application did"
grep -q 'lost in transport 0\b\|0 lost in transport' "$out/record.log" || fail "events lost in transport"
grep -q ', unexplained 0' "$out/summary.txt" || fail "unexplained sequence gaps"

# ---- the findings (the RTOS state model's) ----
if [ -f "$S/include/tracewire/model/rtos.h" ] && grep -q '^TW_MEANING(TASK,' "$S/include/tracewire/events.def"; then
  sum=$out/summary.txt
  grep -q 'priority inversion: high waited on res_bsem held by lower-priority low' "$sum" ||
    fail "the inversion through the binary semaphore res_bsem is not found"
  # (grep -c, not -q, at the end of a pipe: -q may close it early, and
  # pipefail would take the writer's SIGPIPE for a failure)
  [ "$(grep -i 'high2' "$sum" | grep -i 'res_mutex' | grep -ci 'bounded')" -gt 0 ] ||
    fail "the inversion through res_mutex, bounded by inheritance, is not reported as such"
  [ "$(grep '^ *deadlock:' "$sum" | grep 'dl_a' | grep -c 'dl_b')" -gt 0 ] ||
    fail "the deadlock of dl_a and dl_b is not found"
  if grep -q '^ *starvation:' "$sum"; then
    grep '^ *starvation:' "$sum" >&2
    fail "starvation the application did not cause"
  fi
  if grep '^ *blocked at end:' "$sum" | grep -v 'blocked at end: \(dl_a\|dl_b\|tw\|Tmr Svc\) '; then
    fail "a task blocked at the end that the application did not block"
  fi
  echo "freertos_app.sh: counts exact, drops announced, findings as planted ($kind)"
else
  sed -n '/findings/,$p' "$out/summary.txt" | head -8 | sed 's/^/  /'
  echo "freertos_app.sh: counts exact, drops announced ($kind); the findings check is PENDING:" \
       "it runs once the RTOS state model gives the FreeRTOS events a meaning (issue 15)"
fi
