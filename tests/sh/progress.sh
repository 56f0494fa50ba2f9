#!/usr/bin/env bash
# Issue 19, item 13: long work shows progress on a terminal. info, stats
# and index draw a progress line on stderr when it is a terminal (run
# under script(1), which gives the command a pty), ending at 100% of the
# file; with -q, or when stderr is not a terminal, there is none (a log
# file gets no carriage returns).
# Args: build dir, source dir.
set -uo pipefail
build=$(cd "$1" && pwd)
tw=$build/tools/tracewire
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "progress: FAIL: $*" >&2; exit 1; }
if ! command -v script >/dev/null; then
  echo "progress: SKIP: no script(1) (Debian: bsdutils)" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi
"$tw" synth -o "$tmp/raw.bin" --bytes 8M --switches 2>/dev/null || fail synth
"$tw" record --from "$tmp/raw.bin" -o "$tmp/t.twt" -q 2>/dev/null || fail record

# on a terminal (stdout to a file, stderr the pty)
for cmd in "info $tmp/raw.bin" "stats $tmp/raw.bin" "index $tmp/t.twt -o $tmp/i.twt"; do
  name=${cmd%% *}
  script -qec "$tw $cmd > $tmp/out" "$tmp/tty" > /dev/null 2>&1 || fail "$name under script"
  grep -q "$name \[#*\] 100% " "$tmp/tty" || fail "$name: no progress line: $(tr '\r' '\n' < "$tmp/tty" | tail -3)"
done
# -q, and not a terminal: no progress
script -qec "$tw stats -q $tmp/raw.bin > $tmp/out" "$tmp/tty" > /dev/null 2>&1
grep -q "%" "$tmp/tty" && fail "stats -q drew progress"
"$tw" info "$tmp/raw.bin" > /dev/null 2> "$tmp/err"
grep -q "%" "$tmp/err" && fail "info drew progress into a file"
echo "progress: ok"
