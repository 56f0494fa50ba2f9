#!/usr/bin/env bash
# What the live view costs the recording (docs/live.md, "Cost"): a
# synthetic target (`tracewire synth --switches --to tcp://`) sends as fast
# as it can to `tracewire record`, and the same stream to `record --live`
# on a terminal (a pty from script(1): ncurses draws) and with stdout to a
# file (plain lines), alternating, in the same run. Printed: each run's
# events/s taken in (events recorded / the sender's wall time: TCP makes
# the sender wait for the recorder, so this is the rate the recorder keeps
# up with), events/s to the recorder's exit (it includes the view's last
# analysis after the trace is closed), the median per mode, live/plain,
# and the packets the view analysed (it skips the rest when it falls
# behind; the trace has them all).
# Then a paced stream, as a fast real link sends: the view keeps up.
# Usage: bench/bench_live.sh <builddir> [bytes (default 400M)] [rounds (default 3)]
set -euo pipefail
b=${1:?usage: bench/bench_live.sh <builddir> [bytes] [rounds]}
bytes=${2:-400M}
rounds=${3:-3}
tw=$b/tools/tracewire
command -v script >/dev/null || { echo "bench_live: script(1) not found (Debian: bsdutils)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

one() { # MODE [synth options] -> "events/s_in events/s_exit analysed_packets total_packets"
  local mode=$1 log=$tmp/rec.log port= pid
  shift
  rm -f "$tmp/x.twt" "$log"
  : > "$log"
  case $mode in
    plain) "$tw" record -q --no-commands --from tcp-listen://127.0.0.1:0 -o "$tmp/x.twt" 2> "$log" & ;;
    pipe) "$tw" record --live --no-commands --from tcp-listen://127.0.0.1:0 -o "$tmp/x.twt" > "$tmp/out" 2> "$log" & ;;
    tty) TERM=xterm-256color script -qefc \
           "stty cols 80 rows 24; '$tw' record --live --no-commands --from tcp-listen://127.0.0.1:0 -o '$tmp/x.twt' 2> '$log'" \
           /dev/null > /dev/null < /dev/null & ;;
  esac
  pid=$!
  for _ in $(seq 400); do
    port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$log" | head -1)
    [ -n "$port" ] && break
    sleep 0.025
  done
  [ -n "$port" ] || { echo "bench_live: record did not listen: $(cat "$log")" >&2; exit 1; }
  local t0 ts t1
  t0=$(date +%s%N)
  "$tw" synth --bytes "$bytes" --switches --to "tcp://127.0.0.1:$port" "$@" 2> /dev/null
  ts=$(date +%s%N)
  wait "$pid"
  t1=$(date +%s%N)
  local ev
  ev=$(sed -n 's/^tracewire record: \([0-9]*\) events .*/\1/p' "$log")
  [ -n "$ev" ] || { echo "bench_live: no count from record: $(cat "$log")" >&2; exit 1; }
  local an tot
  an=$(sed -n 's/^tracewire record: live view: \([0-9]*\) of \([0-9]*\) packets.*/\1/p' "$log")
  tot=$(sed -n 's/^tracewire record: live view: \([0-9]*\) of \([0-9]*\) packets.*/\2/p' "$log")
  echo "$(( ev * 1000000000 / (ts - t0) )) $(( ev * 1000000000 / (t1 - t0) )) ${an:--} ${tot:--}"
}

declare -A runs
for r in $(seq "$rounds"); do
  for m in plain tty pipe; do
    res=$(one "$m")
    runs[$m]+="${res%% *} "
    printf "bench_live: round %d %-5s %s\n" "$r" "$m" \
      "$(echo "$res" | awk '{ printf "%.2f M events/s taken in, %.2f M/s to the exit", $1 / 1e6, $2 / 1e6 }
                            $3 != "-" { printf ", the view analysed %d of %d packets (%.1f%%)", $3, $4, 100 * $3 / $4 }')"
  done
done
# A paced target (a pause of 20 us between 1 KiB packets, a few hundred
# thousand events/s: a fast real link): the view should analyse everything.
for m in plain tty; do
  res=$(one "$m" --bytes 20M --gap-us 20)
  printf "bench_live: paced %-5s %s\n" "$m" \
    "$(echo "$res" | awk '{ printf "%.3f M events/s taken in", $1 / 1e6 }
                          $3 != "-" { printf ", the view analysed %d of %d packets (%.1f%%)", $3, $4, 100 * $3 / $4 }')"
done
median() { tr ' ' '\n' | grep . | sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
p=$(echo "${runs[plain]}" | median)
t=$(echo "${runs[tty]}" | median)
q=$(echo "${runs[pipe]}" | median)
awk -v p="$p" -v t="$t" -v q="$q" -v b="$bytes" -v r="$rounds" 'BEGIN {
  printf "bench_live: synth --bytes %s --switches at full speed over loopback TCP, median of %d: " \
         "record %.2f M events/s, record --live on a terminal %.2f M (%.2fx), to a file %.2f M (%.2fx)\n",
         b, r, p / 1e6, t / 1e6, t / p, q / 1e6, q / p }'
