#!/usr/bin/env bash
# Issue 19, item 8: a target that connects again and starts from scratch
# (the same stream sent twice, as a board that reset does) starts its
# sequence numbers again. record --reconnect, stats and summary count one
# restart and no loss; record used to report 56,555 events "lost in
# transport" (and folded unexplained gaps into that count).
# Args: build dir, source dir.
set -uo pipefail
build=$(cd "$1" && pwd)
tw=$build/tools/tracewire
target=$build/examples/demo-target/tw-demo-target
tmp=$(mktemp -d)
rec=
cleanup() { [ -n "$rec" ] && kill "$rec" 2>/dev/null; rm -rf "$tmp"; }
trap cleanup EXIT
fail() { echo "restart_reconnect: FAIL: $*" >&2; [ -f "$tmp/rec.log" ] && cat "$tmp/rec.log" >&2; exit 1; }

"$tw" record --from tcp-listen://127.0.0.1:0 --reconnect --no-commands -o "$tmp/t.twt" -q \
  2> "$tmp/rec.log" &
rec=$!
port=
for _ in $(seq 200); do
  port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$tmp/rec.log" | head -1)
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || fail "record did not listen"
# the workload model, twice: the same session from a fresh streamer each time
for i in 1 2; do
  timeout 60 "$target" --scenario demo --connect "tcp://127.0.0.1:$port" --quiet ||
    fail "demo target run $i"
  sleep 0.3 # record notices the disconnect before the next connection
done
kill -INT "$rec"
wait "$rec"
rc=$?
rec=
[ $rc -eq 0 ] || fail "record exit $rc"
grep -q "0 lost in transport" "$tmp/rec.log" || fail "record counted transport loss"
grep -q "1 restart" "$tmp/rec.log" || fail "record did not count the restart"
grep -q "unexplained" "$tmp/rec.log" && fail "record counted unexplained gaps"

"$tw" stats "$tmp/t.twt" > "$tmp/stats" 2> "$tmp/err" || fail "stats: $(cat "$tmp/err")"
grep -q "restarts total: 1" "$tmp/stats" || fail "stats: $(grep -i restart "$tmp/stats")"
grep -q "drops total: ring overflow 2202; transport 0 packets (0 events); unexplained 0" "$tmp/stats" ||
  fail "stats: $(grep 'drops total' "$tmp/stats")"
"$tw" summary "$tmp/t.twt" > "$tmp/sum" 2>/dev/null || fail "summary"
grep -q "transport 0 (0 packets), unexplained 0" "$tmp/sum" || fail "summary: $(grep drops "$tmp/sum")"
grep -q "^restarts  1" "$tmp/sum" || fail "summary says nothing of the restart"
echo "restart_reconnect: ok"
