#!/usr/bin/env bash
# Integration: the POSIX-port target (logger + streamer + command service,
# examples/posix_target) streams over real loopback TCP, UDP and a pty to
# `tracewire record`; `tracewire print` of each recording must equal the
# golden file byte for byte, and `stats` must report exactly the drops the
# target's ring counted. Then: a clean stop on SIGINT, and damage reported
# with file and offset.
#   tests/sh/int_record.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
B=$(cd "$1" && pwd); S=$(cd "$2" && pwd)
TW=$B/tools/tracewire; TGT=$B/examples/posix_target/tw_posix_target
GOLDEN=$S/tests/golden/posix_target_print.txt
T=$(mktemp -d); pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$T"; }
trap cleanup EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

wait_for() { # file pattern: wait up to 10 s for a line
  for _ in $(seq 100); do grep -q "$2" "$1" 2>/dev/null && return 0; sleep 0.1; done
  fail "timeout waiting for '$2' in $1: $(cat "$1" 2>/dev/null)"
}

check() { # transport trace target-stderr
  "$TW" print "$2" > "$T/$1.txt" || fail "$1: print exit $?"
  cmp "$T/$1.txt" "$GOLDEN" || { diff "$GOLDEN" "$T/$1.txt" | head -20; fail "$1: print differs from the golden file"; }
  dropped=$(sed -n 's/^target: dropped //p' "$3")
  [ -n "$dropped" ] && [ "$dropped" -gt 0 ] || fail "$1: target reported no drops ($(cat "$3"))"
  "$TW" stats "$2" > "$T/$1.stats"
  grep -q "^drops total: ring overflow $dropped; transport 0 packets (0 events); unexplained 0$" "$T/$1.stats" \
    || fail "$1: stats drops do not match the target's $dropped: $(grep drops "$T/$1.stats")"
  "$TW" info "$2" | grep -q "clock_hz        1000000" || fail "$1: no target info in the trace"
  echo "ok: $1 ($(wc -l < "$T/$1.txt") events, $dropped dropped, exact)"
}

# TCP: record listens, the target connects
"$TW" record --from tcp-listen://:0 -o "$T/tcp.twt" -q 2> "$T/rec_tcp.err" & pids+=($!)
wait_for "$T/rec_tcp.err" "listening on"
port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T/rec_tcp.err")
timeout 30 "$TGT" --tcp "127.0.0.1:$port" 2> "$T/tgt_tcp.err"
wait "${pids[-1]}" || fail "tcp: record exit $? ($(cat "$T/rec_tcp.err"))"
check tcp "$T/tcp.twt" "$T/tgt_tcp.err"

# UDP: the target binds, record sends it commands and receives datagrams
# (every packet padded to the maximum with InvalidData: not damage)
"$TGT" --udp --pad > "$T/tgt_udp.out" 2> "$T/tgt_udp.err" & pids+=($!)
wait_for "$T/tgt_udp.out" "^udp "
tport=$(awk '/^udp/{print $2}' "$T/tgt_udp.out")
timeout 30 "$TW" record --from "udp://:0?target=127.0.0.1:$tport" -o "$T/udp.twt" -q --idle 1 2> "$T/rec_udp.err" \
  || fail "udp: record exit $? ($(cat "$T/rec_udp.err"))"
wait "${pids[-1]}" || true
check udp "$T/udp.twt" "$T/tgt_udp.err"

# a pty as the serial line
"$TGT" --pty > "$T/tgt_pty.out" 2> "$T/tgt_pty.err" & pids+=($!)
wait_for "$T/tgt_pty.out" "^pty "
dev=$(awk '/^pty/{print $2}' "$T/tgt_pty.out")
timeout 30 "$TW" record --from "serial://$dev?baud=115200" -o "$T/pty.twt" -q 2> "$T/rec_pty.err" \
  || fail "pty: record exit $? ($(cat "$T/rec_pty.err"))"
wait "${pids[-1]}" || true
check pty "$T/pty.twt" "$T/tgt_pty.err"

# two targets at once (same endpoint address): one trace, two sources,
# decoded separately and merged into one time order
"$TW" record --from tcp-listen://:0 --from tcp-listen://:0 -o "$T/two.twt" -q 2> "$T/rec_two.err" & rp=$!; pids+=($rp)
for _ in $(seq 100); do [ "$(grep -c 'listening on' "$T/rec_two.err")" -eq 2 ] && break; sleep 0.1; done
set -- $(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T/rec_two.err")
timeout 30 "$TGT" --tcp "127.0.0.1:$1" 2> "$T/tgt_a.err" & ta=$!; pids+=($ta)
timeout 30 "$TGT" --tcp "127.0.0.1:$2" 2> "$T/tgt_b.err"
wait $ta; wait $rp || fail "two sources: record exit $?"
"$TW" print "$T/two.twt" > "$T/two.txt"
awk -F'[][]' '{ if ($2 < prev) bad++; prev = $2 } END { exit bad > 0 }' "$T/two.txt" || fail "two sources: not in time order"
for src in 0 1; do
  grep " $src:0007/0 " "$T/two.txt" | sed "s/ ([^)]*) $src:/ /" > "$T/two_$src.txt"
  sed 's/ ([^)]*) / /' "$GOLDEN" | cmp - "$T/two_$src.txt" || fail "two sources: source $src's events differ from the golden file"
done
d=$(( $(sed -n 's/^target: dropped //p' "$T/tgt_a.err") + $(sed -n 's/^target: dropped //p' "$T/tgt_b.err") ))
"$TW" stats "$T/two.twt" | grep -q "^drops total: ring overflow $d; transport 0 packets" || fail "two sources: drops"
[ "$("$TW" info "$T/two.twt" | grep -c '^source [01]: tcp-listen://:0')" -eq 2 ] || fail "two sources: info"
echo "ok: two targets in one trace, merged ($(wc -l < "$T/two.txt") events, $d dropped)"

# filters: by event kind, by task (number or name), by time range
f=$("$TW" print --filter event=MutexEvent,SEM "$T/tcp.twt")
[ "$(printf '%s\n' "$f" | wc -l)" -eq "$(grep -c -e 'MutexEvent:' -e 'SemEvent:' "$GOLDEN")" ] \
  && ! printf '%s\n' "$f" | grep -q -v -e 'MutexEvent:' -e 'SemEvent:' || fail "filter event="
[ "$("$TW" print --filter task=sensor "$T/tcp.twt" | wc -l)" -eq "$(grep -c 'task = 2 "sensor"' "$GOLDEN")" ] \
  || fail "filter task=sensor"
[ "$("$TW" print --filter task=2 "$T/tcp.twt" | wc -l)" -eq "$(grep -c 'task = 2 "sensor"' "$GOLDEN")" ] \
  || fail "filter task=2"
n=$("$TW" print --filter time=0.001..0.002 "$T/tcp.twt" | awk -F'[][]' '$2 < 0.001 || $2 > 0.002 {bad++} END {print NR, bad+0}')
[ "${n#* }" = 0 ] && [ "${n% *}" -gt 10 ] || fail "filter time= ($n)"
echo "ok: filters"

# Ctrl-C: a slow stream, interrupted; everything received is in a clean trace
"$TW" record --from tcp-listen://:0 -o "$T/int.twt" -q --no-commands 2> "$T/rec_int.err" & rp=$!; pids+=($rp)
wait_for "$T/rec_int.err" "listening on"
port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$T/rec_int.err")
"$TW" synth --to "tcp://127.0.0.1:$port" --packets 400 --gap-us 5000 2> "$T/synth.err" & sp=$!; pids+=($sp)
sleep 0.7
kill -INT $rp
wait $rp || fail "SIGINT: record exit $? ($(cat "$T/rec_int.err"))"
kill $sp 2>/dev/null || true; wait $sp 2>/dev/null || true
"$TW" info "$T/int.twt" | grep -q "stopped cleanly" || fail "SIGINT: no END chunk"
n=$("$TW" print "$T/int.twt" | wc -l)
[ "$n" -gt 20 ] || fail "SIGINT: only $n events recorded"
echo "ok: SIGINT stop ($n events, trace closed cleanly)"

# damage: errors name the file and the offset; exit status 3
"$TW" synth -o "$T/clean.bin" --packets 10 2>/dev/null
{ head -c 1000 "$T/clean.bin"; printf 'GARBAGE!'; tail -c +1001 "$T/clean.bin"; } > "$T/bad.bin"
set +e; "$TW" print "$T/bad.bin" > /dev/null 2> "$T/bad.err"; rc=$?; set -e
[ $rc -eq 3 ] || fail "damaged input: exit $rc, expected 3"
grep -q "bad.bin: offset [0-9]*: skipped [0-9]* bytes" "$T/bad.err" || fail "damaged input: $(cat "$T/bad.err")"
# a recording cut mid-chunk still reads (its prefix), and says so
head -c 5000 "$T/tcp.twt" > "$T/cut.twt"
set +e; "$TW" print "$T/cut.twt" > "$T/cut.txt" 2> "$T/cut.err"; rc=$?; set -e
[ $rc -eq 3 ] && grep -q "truncated chunk" "$T/cut.err" && [ "$(wc -l < "$T/cut.txt")" -gt 50 ] \
  || fail "truncated trace: exit $rc, $(cat "$T/cut.err")"
cmp <(head -n 50 "$T/cut.txt") <(head -n 50 "$GOLDEN") || fail "truncated trace: prefix differs"
echo "ok: damage and truncation reported with file and offset"

# every command has --help; --version; usage errors exit 2
for c in record print stats info synth; do "$TW" $c --help | grep -q "usage: tracewire $c" || fail "$c --help"; done
"$TW" --version | grep -q "^tracewire [0-9]" || fail "--version"
set +e; "$TW" print > /dev/null 2>&1; rc=$?; "$TW" nosuch > /dev/null 2>&1; rc2=$?; set -e
[ $rc -eq 2 ] && [ $rc2 -eq 2 ] || fail "usage errors exit $rc/$rc2, expected 2"
echo "ok: help, version, exit codes"
