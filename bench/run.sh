#!/usr/bin/env bash
# Run every benchmark against the peers it is compared with (one line per
# benchmark). Usage: bench/run.sh <builddir>
set -euo pipefail
b=${1:-build}
"$b/bench/bench_logger"   # ring put vs LTTng-UST tracepoint (starts its own session)
"$b/bench/bench_decode" 512   # host decode MB/s and events/s vs memcpy of the same bytes
"$b/bench/bench_mti" 20   # MTI dispatch per delivered event vs a direct call
"$b/bench/bench_analysis" 10000000   # analyses and the HTML report on a 10M-event trace vs decode+model
"$b/bench/bench_export" 64     # CTF/Perfetto export, and reading vs babeltrace2 reading the CTF
