#!/usr/bin/env bash
# Direct recording (the minimal configuration: src/target/direct.c) on the
# host: tests/direct/driver.c records a fixed script into an RTT channel,
# draining it as a probe would and not draining it for a while; the bytes
# decode with `tracewire` to exactly the events written, the names, and a
# ring-overflow count equal to the events the recorder dropped, with no
# other loss. Args: build dir, source dir.
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "direct_record: FAIL: $*" >&2; exit 1; }
tw=$build/tools/tracewire
cc=${CC:-cc}
"$cc" -std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
  -D_GNU_SOURCE -DTW_CFG_DIRECT=1 -DTW_CFG_CUSTOM_DECLS=0 -DTW_CFG_MIN_EVENT_PKT=1 \
  -I"$src/include" -I"$src/src" "$src/tests/direct/driver.c" "$src/src/target/direct.c" \
  "$src/src/target/rtt.c" "$src/src/target/trace.c" -o "$tmp/driver"
"$tmp/driver" "$tmp/direct.bin" > "$tmp/counts" || fail "driver exited $?"
read -r _ events _ drops _ packets _ bytes < "$tmp/counts"
[ "$drops" -gt 0 ] || fail "the script should have dropped events: $(cat "$tmp/counts")"
[ "$(stat -c %s "$tmp/direct.bin")" -eq "$bytes" ] || fail "read $(stat -c %s "$tmp/direct.bin") bytes, the recorder wrote $bytes"
"$tw" print "$tmp/direct.bin" > "$tmp/print" 2> "$tmp/print.err" || fail "tracewire print: $(cat "$tmp/print.err")"
[ ! -s "$tmp/print.err" ] || fail "decoder diagnostics: $(cat "$tmp/print.err")"
"$tw" stats "$tmp/direct.bin" > "$tmp/stats" 2>&1 || fail "tracewire stats failed"
n() { grep -c "$1" "$tmp/print" || true; }
[ "$(n 'TaskSwitch:')" -eq 101 ] || fail "$(n 'TaskSwitch:') TaskSwitch events, expected 101"
[ "$(n 'MutexEvent:')" -eq 100 ] || fail "$(n 'MutexEvent:') MutexEvent events, expected 100"
sems=$(n 'SemEvent:')
[ $((sems + drops)) -eq 40 ] || fail "$sems SemEvent + $drops dropped != 40 emitted"
[ "$(n 'Sleep:')" -eq 1 ] || fail "the Sleep event is missing"
[ $((101 + 100 + sems + 1)) -eq "$events" ] || fail "the recorder counted $events events"
grep -q "ring overflow $drops\b\|$drops ring overflow" "$tmp/stats" ||
  { cat "$tmp/stats" >&2; fail "stats do not report the $drops dropped events as ring overflow"; }
grep -qi 'lost in transport 0\|transport 0\|0 lost' "$tmp/stats" || { cat "$tmp/stats" >&2; fail "transport losses reported"; }
for name in idle worker lock; do grep -q "$name" "$tmp/print" || fail "name $name not in the trace"; done
echo "direct_record: $events events, $drops dropped and announced, $packets packets: decoded exactly"
