#!/usr/bin/env bash
# The live view the way a person uses it (docs/live.md): `tracewire top`
# in an 80x24 tmux pane against the demo target (tw-demo-target, the
# workload model over loopback TCP), driven with send-keys and read with
# capture-pane.
#  1. The whole demo run: the pane shows the task names with their CPU
#     shares (filter's and medium's total shares equal the summary's of a
#     plain recording), the interrupts, the findings as groups, and says
#     the trace is complete; s changes the sort; q quits; the trace equals
#     a plain `record` of the same run, event for event.
#  2. A long real-time run stopped with q in the middle: the trace is
#     complete (stopped cleanly) and its events are the plain recording's
#     first ones; space pauses the display and not the recording.
#  3. Not a terminal: plain lines on stdout, the same trace.
# Args: build dir, source dir. Needs tmux (Debian package: tmux).
set -euo pipefail
B=$(cd "$1" && pwd)
tw=$B/tools/tracewire
target=$B/examples/demo-target/tw-demo-target
tmp=$(mktemp -d)
sock=tw-live-$$ nsock=0  # a server per run: a new session on a server being killed fails
bg=()
cleanup() {
  for k in $(seq 0 "$nsock"); do tmux -L "$sock-$k" kill-server 2>/dev/null || true; done
  rm -f "${TMUX_TMPDIR:-/tmp}/tmux-$(id -u)/$sock"-*
  for p in ${bg[@]+"${bg[@]}"}; do kill "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() {
  echo "live_tmux: FAIL: $*" >&2
  [ -f "$tmp/pane.txt" ] && { echo "--- the pane:" >&2; cat "$tmp/pane.txt" >&2; }
  exit 1
}
if ! command -v tmux >/dev/null; then
  [ "${CI:-}" = true ] && fail "tmux not installed (Debian package: tmux)"
  echo "SKIP: *** tmux not found: install the Debian package 'tmux' to run this test ***" >&2
  exit 77
fi
[ -x "$target" ] || fail "$target not built"

# plain recordings of the demo (the same scenario and seed: the same events)
plain_record() { # OUT.twt [target options...]
  local out=$1; shift
  "$tw" record --from tcp-listen://127.0.0.1:0 -o "$out" -q 2> "$tmp/plain.log" &
  local rec=$! port=
  bg+=("$rec")
  for _ in $(seq 200); do
    port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$tmp/plain.log" | head -1)
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || fail "record did not listen: $(cat "$tmp/plain.log")"
  "$target" --connect "tcp://127.0.0.1:$port" --wait-start "$@" 2>/dev/null
  wait $rec || fail "plain record failed: $(cat "$tmp/plain.log")"
}
plain_record "$tmp/plain.twt"
"$tw" print "$tmp/plain.twt" > "$tmp/plain.txt"
"$tw" summary "$tmp/plain.twt" > "$tmp/summary.txt"
share() { sed -n "s/^ *$1 *\([0-9.]*\)%.*/\1/p" "$tmp/summary.txt"; }
filter=$(share filter); medium=$(share medium)
[ -n "$filter" ] && [ -n "$medium" ] || fail "no CPU shares in the summary: $(cat "$tmp/summary.txt")"

# tmux: one server of our own, an 80x24 window
start_top() { # OUT.twt [record options...]
  local out=$1; shift
  rm -f "$tmp/rc" "$tmp/rec.log"
  : > "$tmp/rec.log"
  tmux -L "$sock-$nsock" kill-server 2>/dev/null || true
  nsock=$((nsock + 1))
  tmux -L "$sock-$nsock" -f /dev/null new-session -d -x 80 -y 24 -s top \
    "TERM=xterm-256color '$tw' top tcp-listen://127.0.0.1:0 -o '$out' $* 2> '$tmp/rec.log'; echo \$? > '$tmp/rc'; sleep 60"
  port=
  for _ in $(seq 200); do
    port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$tmp/rec.log" | head -1)
    [ -n "$port" ] && break
    sleep 0.05
  done
  [ -n "$port" ] || fail "top did not listen: $(cat "$tmp/rec.log")"
}
pane() { tmux -L "$sock-$nsock" capture-pane -p -t top > "$tmp/pane.txt"; cat "$tmp/pane.txt"; }
wait_pane() { # REGEX [seconds]
  local n=$(( ${2:-30} * 10 ))
  for _ in $(seq "$n"); do
    pane > /dev/null; grep -Eq "$1" "$tmp/pane.txt" && return 0
    sleep 0.1
  done
  fail "the pane never showed /$1/"
}
wait_exit() {
  for _ in $(seq 300); do [ -s "$tmp/rc" ] && return 0; sleep 0.1; done
  fail "top did not exit"
}
key() { tmux -L "$sock-$nsock" send-keys -t top "$@"; }

# ---- 1. the whole run, then q ----
start_top "$tmp/live.twt"
"$target" --connect "tcp://127.0.0.1:$port" --wait-start 2>/dev/null
wait_pane 'trace complete'
pane > /dev/null
[ "$(wc -l < "$tmp/pane.txt")" -le 24 ] || fail "more than 24 lines"
[ "$(awk '{ if (length($0) > 80) n++ } END { print n + 0 }' "$tmp/pane.txt")" -eq 0 ] || fail "lines wider than 80 columns"
for t in filter medium sampler collector low dispatcher; do
  grep -Eq "^$t +[0-9]+ " "$tmp/pane.txt" || fail "task $t not shown"
done
# the TOTAL column: the share since the start, the summary's number
grep -Eq "^filter .* $filter%\$" "$tmp/pane.txt" || fail "filter's total share is not $filter%"
grep -Eq "^medium .* $medium%\$" "$tmp/pane.txt" || fail "medium's total share is not $medium%"
grep -Eq '^(filter|medium|sampler) .* [0-9]+\.[0-9]% #+' "$tmp/pane.txt" || fail "no CPU bars"
grep -Eq '^IRQ/s .*(adc|SysTick)' "$tmp/pane.txt" || fail "no interrupt rates"
grep -Eq '^FINDINGS +[0-9]+ in [0-9]+ groups' "$tmp/pane.txt" || fail "no finding groups"
grep -Eq '^ inversion +x[0-9]+ +high on res held by low' "$tmp/pane.txt" || fail "the planted inversion is not a group"
grep -Eq '^loss +ring 1101 ' "$tmp/pane.txt" || fail "the ring loss (1101) is not shown"
key s
wait_pane 'sort: cpu since start' 5
key q
wait_exit
[ "$(cat "$tmp/rc")" = 0 ] || fail "top exited $(cat "$tmp/rc"): $(cat "$tmp/rec.log")"
"$tw" info "$tmp/live.twt" | grep -q 'stopped cleanly' || fail "the trace is not complete"
"$tw" print "$tmp/live.twt" > "$tmp/live.txt"
cmp -s "$tmp/live.txt" "$tmp/plain.txt" ||
  { diff "$tmp/plain.txt" "$tmp/live.txt" | head -5 >&2; fail "the live recording differs from a plain one"; }
grep -q 'tracewire record: 5321 events' "$tmp/rec.log" || fail "the recorder's last line: $(cat "$tmp/rec.log")"

# ---- 2. q in the middle of a long real-time run; space pauses the display ----
long=(--realtime --duration 30000000)
start_top "$tmp/mid.twt"
"$target" --connect "tcp://127.0.0.1:$port" --wait-start "${long[@]}" 2>/dev/null &
tgt=$!
bg+=("$tgt")
wait_pane '^filter +4 ' 20
wait_pane '^link +[0-9.]+ [kM]?B/s' 10
key ' '
wait_pane 'PAUSED' 5
frozen=$(pane | sed -n '2,$p' | md5sum)
sleep 1
pane > /dev/null; [ "$(sed -n "2,\$p" "$tmp/pane.txt" | md5sum)" = "$frozen" ] || fail "the display moved while paused"
key ' '
wait_pane ' recording *$' 5
sleep 0.5
key q
wait_exit
wait $tgt || true
[ "$(cat "$tmp/rc")" = 0 ] || fail "top exited $(cat "$tmp/rc") after q: $(cat "$tmp/rec.log")"
"$tw" info "$tmp/mid.twt" | grep -q 'stopped cleanly' || fail "q left an incomplete trace"
plain_record "$tmp/plain-long.twt" --duration 30000000
"$tw" print "$tmp/mid.twt" | grep -v 'TraceStop' > "$tmp/mid.txt"
n=$(wc -l < "$tmp/mid.txt")
[ "$n" -gt 5400 ] || fail "only $n records before q"
"$tw" print "$tmp/plain-long.twt" > "$tmp/plain-long.all"  # (not into head: pipefail, SIGPIPE)
head -n "$n" "$tmp/plain-long.all" > "$tmp/plain-long.txt"
cmp -s "$tmp/mid.txt" "$tmp/plain-long.txt" ||
  { diff "$tmp/plain-long.txt" "$tmp/mid.txt" | head -5 >&2; fail "the stopped trace is not the plain recording's start"; }

# ---- 3. not a terminal: plain lines ----
"$tw" record --live --from tcp-listen://127.0.0.1:0 -o "$tmp/pipe.twt" > "$tmp/pipe.out" 2> "$tmp/rec.log" &
rec=$!
bg+=("$rec")
port=
for _ in $(seq 200); do
  port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$tmp/rec.log" | head -1)
  [ -n "$port" ] && break
  sleep 0.05
done
"$target" --connect "tcp://127.0.0.1:$port" --wait-start 2>/dev/null
wait $rec || fail "record --live to a pipe failed: $(cat "$tmp/rec.log")"
grep -q '^\[[0-9.]* s\] end: link ' "$tmp/pipe.out" || fail "no final plain line: $(cat "$tmp/pipe.out")"
grep -Eq '^\[[0-9.]* s\] cpu %, last second \(since start\): filter [0-9.]+ \('"$filter"'\)' "$tmp/pipe.out" ||
  fail "plain lines lack filter's share: $(cat "$tmp/pipe.out")"
"$tw" print "$tmp/pipe.twt" | cmp -s - "$tmp/plain.txt" || fail "record --live to a pipe recorded something else"
echo "live_tmux: the pane shows tasks, shares (filter $filter%, medium $medium%), interrupts and groups;" \
     "q leaves a complete trace equal to a plain recording; $n records before q mid-run; plain lines off a terminal"
