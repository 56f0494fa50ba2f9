#!/usr/bin/env bash
# Issue 19, item 7: record keeps its loop during a garbage flood. A source
# that never stops sending bytes, none of them a packet (a UART at the
# wrong baud rate), used to hold record inside the reader: --duration and
# SIGTERM were never seen. Now --duration ends it in time and SIGTERM
# stops it cleanly (exit 0, a trace with its END).
# Args: build dir, source dir.
set -uo pipefail
build=$(cd "$1" && pwd)
tw=$build/tools/tracewire
tmp=$(mktemp -d)
flood_pid=
cleanup() {
  [ -n "$flood_pid" ] && kill "$flood_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "record_flood: FAIL: $*" >&2; exit 1; }

mkfifo "$tmp/uart"
# about 6 MB/s of random bytes, for as long as someone reads
flood() {
  while head -c 65536 /dev/urandom; do sleep 0.01; done > "$tmp/uart" 2>/dev/null
}

flood & flood_pid=$!
t0=$(date +%s%N)
timeout 30 "$tw" record --from "$tmp/uart" -o "$tmp/a.twt" --duration 1 --no-commands -q \
  2> "$tmp/err"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
kill "$flood_pid" 2>/dev/null; wait "$flood_pid" 2>/dev/null; flood_pid=
[ $rc -ne 124 ] || fail "--duration 1 during a flood: still recording after 30 s"
[ $rc -eq 0 ] || fail "--duration 1: exit $rc: $(cat "$tmp/err")"
[ $ms -lt 10000 ] || fail "--duration 1 took $ms ms"
"$tw" info "$tmp/a.twt" > "$tmp/info" 2>/dev/null # exit 3: it holds only garbage
grep -q "stopped cleanly" "$tmp/info" || fail "no END after --duration"

flood & flood_pid=$!
timeout 30 "$tw" record --from "$tmp/uart" -o "$tmp/b.twt" --no-commands -q 2> "$tmp/err" &
rec=$!
sleep 1
kill -TERM "$rec"
t0=$(date +%s%N)
wait "$rec"
rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
kill "$flood_pid" 2>/dev/null; wait "$flood_pid" 2>/dev/null; flood_pid=
[ $rc -ne 124 ] || fail "SIGTERM during a flood: ignored"
[ $rc -eq 0 ] || fail "SIGTERM: exit $rc: $(cat "$tmp/err")"
[ $ms -lt 10000 ] || fail "SIGTERM took $ms ms to stop the recording"
"$tw" info "$tmp/b.twt" > "$tmp/info" 2>/dev/null
grep -q "stopped cleanly" "$tmp/info" || fail "no END after SIGTERM"
echo "record_flood: ok"
