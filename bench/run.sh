#!/usr/bin/env bash
# Run every benchmark against the peers it is compared with (one line per
# benchmark). Usage: bench/run.sh <builddir> [--smoke]
# --smoke: small sizes, for CI, which checks that every benchmark builds,
# runs and finds its peer; its figures are not the measurements.
set -euo pipefail
b=${1:-build}
small=0
[ "${2:-}" = "--smoke" ] && small=1
pick() { if [ $small = 1 ]; then echo "$2"; else echo "$1"; fi; }
"$b/bench/bench_logger"   # ring put vs LTTng-UST tracepoint (starts its own session)
"$b/bench/bench_decode" "$(pick 512 8)"   # host decode MB/s and events/s vs memcpy of the same bytes
"$b/bench/bench_mti" "$(pick 20 1)"   # MTI dispatch per delivered event vs a direct call
"$b/bench/bench_analysis" "$(pick 10000000 100000)"   # analyses and the HTML report on a 10M-event trace vs decode+model
"$b/bench/bench_export" "$(pick 64 4)"     # CTF/Perfetto export, and reading vs babeltrace2 reading the CTF
"$b/bench/bench_check" "$(pick 20000 50)"  # the streamer with the payload check vs without it
bash "$(dirname "$0")/bench_live.sh" "$b" "$(pick 400M 20M)" "$(pick 5 1)"   # record vs record --live at full speed
# FreeRTOS: a queue send+receive pair on the real kernel (POSIX port) without
# and with the tracewire hooks (needs FREERTOS_KERNEL_PATH at configure time)
if [ -x "$b/bench/bench_freertos_queue_plain" ]; then
  plain=$("$b/bench/bench_freertos_queue_plain" "$(pick 30 2)")
  traced=$("$b/bench/bench_freertos_queue_traced" "$(pick 30 2)")
  echo "$plain $traced" | awk '{ p = $3; t = $6; o = $8
    printf "bench_freertos_queue: send+receive pair %.1f ns untraced, %.1f ns traced (+%.1f ns per event,"\
           " 2 events per pair), %.1f ns with recording stopped (+%.1f ns per pair)\n",
           p, t, (t - p) / 2, o, o - p }'
else
  echo "bench_freertos_queue: SKIPPED: not built (configure with -DFREERTOS_KERNEL_PATH=...)"
  [ "${CI:-}" = true ] && exit 1
fi
