#!/usr/bin/env bash
# The memory-safety reproducers of issue 19 (../shared/repro, beside the
# source tree) through the real CLI, each under a timeout: no sanitizer
# report (the ASan+UBSan suite makes every one fatal), no hang, and the
# exit status the damaged input calls for (3: input damaged, docs/cli.md).
# Without ../shared the test skips (77), except in CI.
# Args: build dir, source dir.
set -uo pipefail
build=$(cd "$1" && pwd)
repro=$2/../shared/repro
tw=$build/tools/tracewire
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "repro_memsafety: FAIL: $*" >&2; exit 1; }
if [ ! -d "$repro" ]; then
  echo "repro_memsafety: SKIP: no reproducers at $repro (../shared beside the source tree)" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi
# Generous: each input is well under a second, even under ASan on a loaded
# machine; a hang is what this bounds.
limit=120

# expect STATUS NAME CMD...: runs CMD, checks its exit status and stderr.
expect() {
  local want=$1 name=$2 rc
  shift 2
  timeout "$limit" "$@" > "$tmp/$name.out" 2> "$tmp/$name.err"
  rc=$?
  [ "$rc" -ne 124 ] || fail "$name: still running after ${limit}s: $*"
  if grep -q 'ERROR: AddressSanitizer\|runtime error:' "$tmp/$name.err"; then
    grep -m1 -A8 'ERROR: AddressSanitizer\|runtime error:' "$tmp/$name.err" >&2
    fail "$name: sanitizer report: $*"
  fi
  [ "$rc" -eq "$want" ] || { tail -3 "$tmp/$name.err" >&2; fail "$name: exit $rc, want $want: $*"; }
}

# 1. use-after-free in the analysis engine (deadlock check grew the tasks)
uaf=$repro/uaf_engine_raw.bin
expect 3 uaf-analyze "$tw" analyze "$uaf"
expect 3 uaf-summary "$tw" summary "$uaf"
expect 3 uaf-report "$tw" report "$uaf" -o "$tmp/uaf.html"
expect 3 uaf-run "$tw" run "$uaf" --plugin "$build/examples/plugins/libanalysis.so@an"

# 2. a timestamp near 2^64 ns (one flipped bit, valid on the wire): the
# load windows' width wrapped and analyze looped forever
hang=$repro/hang_1bitflip.twt
expect 0 hang-analyze "$tw" analyze "$hang"
expect 0 hang-summary "$tw" summary "$hang"
expect 0 hang-report "$tw" report "$hang" -o "$tmp/hang.html"
expect 0 hang-run "$tw" run "$hang" --plugin "$build/examples/plugins/libanalysis.so@an"

# 3. the report's time deltas overflowed (signed) on a wrapped timestamp
expect 3 ubsan-report "$tw" report "$repro/ubsan_report.twt" -o "$tmp/ubsan.html"
grep -q '</html>' "$tmp/ubsan.html" || fail "ubsan-report: the page is incomplete"

echo "repro_memsafety: ok"
