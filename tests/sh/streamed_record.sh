#!/usr/bin/env bash
# The streamed minimal configuration (TW_CFG_STREAMER_MINIMAL=1: the event
# logger ring, the minimal streamer, its packets, an RTT up channel) on the
# host: tests/streamed/driver.c records a fixed script and plays the probe.
#   1. The bytes decode with `tracewire` to exactly the events the general
#      streamer puts on the wire for the same script (the same driver built
#      without the option), times included; only the general streamer's
#      periodic SYNC (due after the script's long sleep) is extra.
#   2. With the probe not reading for a while (refused packets, the ring
#      overflowing): every event emitted is decoded or announced as ring
#      overflow, exactly, with no transport loss and no diagnostic.
# Every stream's packet and record sequence numbers are checked against
# the rules by tests/sh/seq_check.py (the decoder takes a DROPS count at
# its word, so it would not see a skip that is missing).
# Args: build dir, source dir.
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "streamed_record: FAIL: $*" >&2; exit 1; }
if ! command -v python3 >/dev/null; then
  echo "streamed_record: python3 not found (Debian package: python3)" >&2
  [ "${CI:-}" = true ] && exit 1
  echo "streamed_record: SKIPPED" >&2; exit 77
fi
tw=$build/tools/tracewire
cc=${CC:-cc}
flags=(-std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes
       -Wno-missing-field-initializers -D_GNU_SOURCE -DTW_CFG_CUSTOM_DECLS=0 -DTW_CFG_MIN_EVENT_PKT=1
       -I"$src/include" -I"$src/src")
srcs=("$src/tests/streamed/driver.c" "$src/src/common/uia.c")
for f in streamer event_logger kernel_event_logger trace trace_klog rtt waiter source_klog; do
  srcs+=("$src/src/target/$f.c")
done
"$cc" "${flags[@]}" -DTW_CFG_STREAMER_MINIMAL=1 -DTW_CFG_LOGGER_WAKE=0 "${srcs[@]}" -o "$tmp/minimal"
"$cc" "${flags[@]}" "${srcs[@]}" -o "$tmp/general"

decode() { # trace.bin -> trace.print, no diagnostics allowed
  python3 "$src/tests/sh/seq_check.py" "$src" "$1.bin" > /dev/null || fail "sequence numbers of $1.bin"
  "$tw" print "$1.bin" > "$1.print" 2> "$1.err" || fail "tracewire print $1.bin: $(cat "$1.err")"
  [ ! -s "$1.err" ] || fail "decoder diagnostics on $1.bin: $(cat "$1.err")"
  "$tw" stats "$1.bin" > "$1.stats" 2>&1 || fail "tracewire stats $1.bin failed"
}
counts() { # the script's counts: emitted N dropped D
  read -r _ emitted _ dropped < "$1.counts"
}

# 1. the same events as the general streamer's
"$tmp/minimal" "$tmp/m.bin" > "$tmp/m.counts" || fail "minimal driver exited $?"
"$tmp/general" "$tmp/g.bin" > "$tmp/g.counts" || fail "general driver exited $?"
decode "$tmp/m"; decode "$tmp/g"
cmp -s "$tmp/m.counts" "$tmp/g.counts" || fail "counts differ: $(cat "$tmp/m.counts") / $(cat "$tmp/g.counts")"
head -1 "$tmp/m.print" | grep -q 'Sync:' || fail "the recording does not begin with SYNC"
diff <(grep -v 'Sync:' "$tmp/m.print") <(grep -v 'Sync:' "$tmp/g.print") >&2 ||
  fail "the minimal streamer's events differ from the general streamer's"
[ "$(grep -c 'Sync:' "$tmp/m.print")" -eq 1 ] || fail "the minimal streamer writes SYNC at START only"
for kind in TraceStart TraceStop ObjectEvent Sleep; do
  grep -q "$kind:" "$tmp/m.print" || fail "$kind missing"
done
for name in EnterInt LeaveInt idle worker lock; do
  grep -q "name = \"$name\"" "$tmp/m.print" || fail "NAME $name missing"
done

# 2. refused packets and ring overflow, all counted
"$tmp/minimal" "$tmp/r.bin" refuse > "$tmp/r.counts" || fail "minimal driver (refuse) exited $?"
decode "$tmp/r"
counts "$tmp/r"
[ "$dropped" -gt 300 ] || fail "the refusal phase should have dropped events: $(cat "$tmp/r.counts")"
kernel=$(grep -c 'TaskSwitch:\|MutexEvent:\|SemEvent:\|ObjectEvent:\|Sleep:' "$tmp/r.print" || true)
[ $((kernel + dropped)) -eq "$emitted" ] || fail "$kernel decoded + $dropped dropped != $emitted emitted"
grep -q "ring overflow $dropped events" "$tmp/r.stats" ||
  { cat "$tmp/r.stats" >&2; fail "stats do not report the $dropped dropped events as ring overflow"; }
grep -q 'lost in transport 0 packets (0 events); unexplained 0' "$tmp/r.stats" ||
  { cat "$tmp/r.stats" >&2; fail "transport losses reported"; }
echo "streamed_record: $(grep -c . "$tmp/m.print") records as the general streamer's; with refusals $emitted events, $dropped dropped and announced: decoded exactly"
