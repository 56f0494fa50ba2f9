#!/usr/bin/env bash
# `make run-qemu` against `make run`: the demo scenario (seed 1) recorded
# from the firmware under QEMU (UART0 over loopback TCP, the recorder's
# commands arriving mid-stream) decodes to the same events, timestamps
# included, as the host model's recording; and its summary (drops, CPU
# load per task, findings) is the same, apart from the count of control
# records (names resent for the recorder's START), which depends on when
# the firmware read the command. Bounded: QEMU is given 120 s.
# Args: build dir, source dir. Skips (77) without qemu/arm gcc, fails in CI.
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "qemu_run_matches_demo: FAIL: $*" >&2; exit 1; }
need() {
  command -v "$1" >/dev/null && return 0
  echo "qemu_run_matches_demo: $1 not found (Debian package: $2)" >&2
  [ "${CI:-}" = true ] && exit 1
  echo "qemu_run_matches_demo: SKIPPED" >&2; exit 77
}
need qemu-system-arm qemu-system-arm
need arm-none-eabi-gcc gcc-arm-none-eabi
dump=$build/examples/demo-target/tw-demo-dump
[ -x "$dump" ] || fail "tw-demo-dump not built"

# the firmware into the temporary directory (parallel tests, no shared build)
mkdir -p "$tmp/b/firmware"
ln -s "$build/tools" "$tmp/b/tools"
ln -s "$build/examples" "$tmp/b/examples"
for t in host qemu; do
  TARGET=$t SCENARIO=demo SEED=1 OUT=$tmp/$t bash "$src/scripts/run-demo.sh" "$tmp/b" \
    > "$tmp/$t.txt" 2>&1 || { rc=$?; cat "$tmp/$t.txt" >&2; fail "run-demo.sh TARGET=$t exited $rc"; }
  "$dump" "$tmp/$t/trace.twt" > "$tmp/$t.events" 2> "$tmp/$t.dump"
done
[ "$(wc -l < "$tmp/host.events")" -gt 1000 ] || fail "host trace has too few events"
cmp -s "$tmp/host.events" "$tmp/qemu.events" || {
  diff "$tmp/host.events" "$tmp/qemu.events" | head -5 >&2
  fail "decoded events differ between the firmware under QEMU and the host model"
}
diff <(tail -n +2 "$tmp/host/summary.txt") <(tail -n +2 "$tmp/qemu/summary.txt") >&2 ||
  fail "summaries differ"
echo "qemu_run_matches_demo: $(wc -l < "$tmp/qemu.events") events identical; $(cat "$tmp/qemu.dump")"
