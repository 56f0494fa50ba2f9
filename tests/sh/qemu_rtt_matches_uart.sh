#!/usr/bin/env bash
# `make run-qemu TRANSPORT=rtt` against `make run-qemu`: the demo scenario
# (seed 1) from the firmware under QEMU, once over UART0 and once over RTT
# read through QEMU's gdbstub by `tracewire record --from rtt+gdb://`,
# decodes to the same events, timestamps included; the summaries agree
# apart from the count of control records (the recorder's START arrives
# at another point of the stream). Bounded: QEMU is given 120 s a run.
# Args: build dir, source dir. Skips (77) without qemu/arm gcc, fails in CI.
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "qemu_rtt_matches_uart: FAIL: $*" >&2; exit 1; }
need() {
  command -v "$1" >/dev/null && return 0
  echo "qemu_rtt_matches_uart: $1 not found (Debian package: $2)" >&2
  [ "${CI:-}" = true ] && exit 1
  echo "qemu_rtt_matches_uart: SKIPPED" >&2; exit 77
}
need qemu-system-arm qemu-system-arm
need arm-none-eabi-gcc gcc-arm-none-eabi
need python3 python3
dump=$build/examples/demo-target/tw-demo-dump
[ -x "$dump" ] || fail "tw-demo-dump not built"

# the firmware into the temporary directory (parallel tests, no shared build)
mkdir -p "$tmp/b/firmware"
ln -s "$build/tools" "$tmp/b/tools"
ln -s "$build/examples" "$tmp/b/examples"
for t in uart rtt; do
  TARGET=qemu TRANSPORT=$t SCENARIO=demo SEED=1 OUT=$tmp/$t bash "$src/scripts/run-demo.sh" "$tmp/b" \
    > "$tmp/$t.txt" 2>&1 || { rc=$?; cat "$tmp/$t.txt" >&2; fail "run-demo.sh TRANSPORT=$t exited $rc"; }
  "$dump" "$tmp/$t/trace.twt" > "$tmp/$t.events" 2> "$tmp/$t.dump"
done
grep -q 'rtt+gdb://' "$tmp/rtt/record.log" "$tmp/rtt.txt" || fail "the RTT run did not record through rtt+gdb://"
[ "$(wc -l < "$tmp/uart.events")" -gt 1000 ] || fail "UART trace has too few events"
cmp -s "$tmp/uart.events" "$tmp/rtt.events" || {
  diff "$tmp/uart.events" "$tmp/rtt.events" | head -5 >&2
  fail "decoded events differ between the RTT and the UART path"
}
grep -q 'pkts_lost 0 unexplained 0' "$tmp/rtt.dump" || fail "the RTT path lost packets: $(cat "$tmp/rtt.dump")"
diff <(tail -n +2 "$tmp/uart/summary.txt") <(tail -n +2 "$tmp/rtt/summary.txt") >&2 ||
  fail "summaries differ"
echo "qemu_rtt_matches_uart: $(wc -l < "$tmp/rtt.events") events identical over RTT and UART; $(cat "$tmp/rtt.dump")"
