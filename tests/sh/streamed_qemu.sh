#!/usr/bin/env bash
# The streamed minimal configuration on a Cortex-M under QEMU (mps2-an385):
# tests/streamed/driver.c built as firmware with the Cortex-M port, for a
# Cortex-M3 (LDREX/STREX puts) and a Cortex-M0 (the interrupt-lock puts,
# ARMv6-M code run on the same core), records its script and plays the
# probe, its bytes leaving through UART0 into a file. Each run, with and
# without the phase of refused packets, must write byte for byte what the
# host build of the same driver writes (tests/sh/streamed_record.sh decodes
# those), and report the same counts.
# Args: build dir, source dir. Skips (77) without qemu/arm gcc, fails in CI.
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "streamed_qemu: FAIL: $*" >&2; exit 1; }
need() {
  command -v "$1" >/dev/null && return 0
  echo "streamed_qemu: $1 not found (Debian package: $2)" >&2
  [ "${CI:-}" = true ] && exit 1
  echo "streamed_qemu: SKIPPED" >&2; exit 77
}
need qemu-system-arm qemu-system-arm
need arm-none-eabi-gcc gcc-arm-none-eabi
cfg=(-DTW_CFG_STREAMER_MINIMAL=1 -DTW_CFG_LOGGER_WAKE=0 -DTW_CFG_CUSTOM_DECLS=0 -DTW_CFG_MIN_EVENT_PKT=1)
warn=(-Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes -Wno-missing-field-initializers)

# the host's bytes
host=("$src/tests/streamed/driver.c" "$src/src/common/uia.c")
for f in streamer event_logger kernel_event_logger trace trace_klog rtt waiter; do
  host+=("$src/src/target/$f.c")
done
"${CC:-cc}" -std=c11 -O2 "${warn[@]}" -D_GNU_SOURCE "${cfg[@]}" -I"$src/include" -I"$src/src" \
  "${host[@]}" -o "$tmp/host"
"$tmp/host" "$tmp/host.bin" > "$tmp/host.counts" || fail "host driver exited $?"
"$tmp/host" "$tmp/host-refuse.bin" refuse > "$tmp/host-refuse.counts" || fail "host driver (refuse) exited $?"

for cpu in cortex-m3 cortex-m0; do
  arm-none-eabi-gcc -std=c11 -mcpu=$cpu -mthumb -Os -g -ffreestanding -ffunction-sections \
    -fdata-sections "${warn[@]}" "${cfg[@]}" -DTW_CFG_CM_TIMESTAMP_FN=tw_test_clock \
    -DTW_CFG_CPU_HZ=1000000 -I"$src/include" -I"$src/src" -I"$src/firmware" -nostartfiles \
    --specs=nano.specs --specs=nosys.specs -Wl,--gc-sections -T "$src/firmware/mps2-an385.ld" \
    "$src/tests/streamed/driver.c" "$src"/firmware/{startup,semihost,systick,uart}.c \
    "$src"/src/common/*.c "$src"/src/target/*.c "$src"/src/port/cortex-m/*.c -o "$tmp/$cpu.elf"
  for run in "" -refuse; do
    rc=0
    timeout 120 qemu-system-arm -M mps2-an385 -nographic -monitor none \
      -serial "file:$tmp/$cpu$run.bin" -semihosting-config enable=on,target=native \
      -kernel "$tmp/$cpu.elf" ${run:+-append refuse} > "$tmp/$cpu$run.counts" 2>&1 || rc=$?
    [ $rc -eq 0 ] || { cat "$tmp/$cpu$run.counts" >&2; fail "$cpu$run: QEMU exited $rc"; }
    cmp -s "$tmp/$cpu$run.counts" "$tmp/host$run.counts" ||
      fail "$cpu$run counts '$(cat "$tmp/$cpu$run.counts")', host '$(cat "$tmp/host$run.counts")'"
    cmp "$tmp/$cpu$run.bin" "$tmp/host$run.bin" >&2 || fail "$cpu$run: the bytes differ from the host's"
  done
done
echo "streamed_qemu: Cortex-M3 and M0 under QEMU write the host's bytes ($(stat -c %s "$tmp/host.bin") and $(stat -c %s "$tmp/host-refuse.bin") bytes; $(cat "$tmp/host-refuse.counts"))"
