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
"$TGT" --udp > "$T/tgt_udp.out" 2> "$T/tgt_udp.err" & pids+=($!)
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
