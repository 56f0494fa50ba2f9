#!/usr/bin/env bash
# Run every benchmark of a build: bench/run.sh <builddir>. One line each.
set -euo pipefail
b=${1:-build}
"$b/bench/bench_decode" 512
"$b/bench/bench_mti" 20
