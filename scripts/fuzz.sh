#!/usr/bin/env bash
# make fuzz: build every fuzz/fuzz_*.c as a libFuzzer binary (clang,
# ASan+UBSan, in $BUILD, default build-fuzz) and run each for FUZZ_SECONDS
# (default 60) from a scratch copy of its checked-in corpus. Any finding
# (crash, leak, sanitizer report, an abort() of a target's own check, a
# timeout) fails the run; the input is left as $BUILD/findings/<target>/crash-*
# and the log printed. Add it to fuzz/regress/<target>/ with the fix.
#   FUZZ_SECONDS=600 make fuzz            longer runs by hand
#   FUZZ_TARGETS="reader twt" make fuzz   a subset
# Prints one line per target: executions, coverage, corpus size.
set -euo pipefail
cd "$(dirname "$0")/.."
B=${BUILD:-build-fuzz}
secs=${FUZZ_SECONDS:-60}
if ! command -v clang >/dev/null; then
  echo "fuzz: clang not found (Debian: clang, libclang-rt-14-dev)" >&2
  exit 1
fi
# configure every time (cheap): a new fuzz/fuzz_*.c must become a target
CC=clang cmake -S . -B "$B" -DTW_FUZZ=ON -DTW_SANITIZE=address,undefined \
  -DTW_BUILD_TESTS=OFF -DTW_BUILD_BENCH=OFF -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
targets=${FUZZ_TARGETS:-$(for f in fuzz/fuzz_*.c; do basename "$f" .c | sed 's/^fuzz_//'; done)}
cmake --build "$B" -j "${JOBS:-2}" --target switches fieldprint \
  $(for t in $targets; do printf 'fuzz_%s ' "$t"; done) >/dev/null
fail=0
for t in $targets; do
  work="$B/corpus/$t" out="$B/findings/$t"
  mkdir -p "$work" "$out"
  log="$B/fuzz_$t.log"
  # the checked-in corpus and regressions are read-only seeds; new inputs
  # go to the scratch dir
  # targets that run whole commands say every problem of a damaged input
  # on stderr: closed (libFuzzer still reports crashes and its stats)
  quiet=
  case " analysis export index " in *" $t "*) quiet=-close_fd_mask=3 ;; esac
  if "$B/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=1024 \
       -max_len=8192 -print_final_stats=1 -artifact_prefix="$out/" $quiet \
       "$work" "fuzz/corpus/$t" $( [ -d "fuzz/regress/$t" ] && echo "fuzz/regress/$t") \
       >"$log" 2>&1; then
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    cov=$(grep -o 'cov: [0-9]*' "$log" | tail -1)
    echo "fuzz $t: ${execs:-?} executions in ${secs}s, ${cov:-cov: ?}, corpus $(ls "$work" | wc -l) new"
  else
    tail -60 "$log"
    echo "fuzz $t: FINDING, input under $out/" >&2
    fail=1
  fi
done
exit $fail
