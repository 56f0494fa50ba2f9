#!/usr/bin/env bash
# The same firmware on a Cortex-M3 (QEMU mps2-an385) and the host model:
# for each scenario, the UART byte stream of the firmware equals the TCP/file
# stream of tw-demo-target byte for byte (same model, same virtual clock),
# hence the decoded traces are equal event for event, timestamps included.
# Also decodes the firmware's stream and checks it against the model's own
# event log (what the model emitted minus exactly the ring drops).
# Args: build dir, source dir. Needs arm-none-eabi-gcc and qemu-system-arm:
# skips (77) on a dev machine without them, fails in CI.
set -euo pipefail
build=$(cd "$1" && pwd); src=$(cd "$2" && pwd)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

need() {
  command -v "$1" >/dev/null && return 0
  echo "qemu_matches_host: $1 not found (Debian package: $2)" >&2
  [ "${CI:-}" = true ] && exit 1
  echo "qemu_matches_host: SKIPPED" >&2; exit 77
}
need qemu-system-arm qemu-system-arm
need arm-none-eabi-gcc gcc-arm-none-eabi

target=$build/examples/demo-target/tw-demo-target
dump=$build/examples/demo-target/tw-demo-dump
[ -x "$target" ] && [ -x "$dump" ] || { echo "qemu_matches_host: build tw-demo-target and tw-demo-dump first" >&2; exit 1; }

# The firmware, built out of tree so parallel builds do not collide.
make -s -C "$src/firmware" OUT="$tmp/fw" >/dev/null
fw=$tmp/fw/fw.elf

run_fw() { # scenario seed out
  local rc=0
  timeout 60 qemu-system-arm -M mps2-an385 -nographic -monitor none -semihosting \
    -kernel "$fw" -serial "file:$3" -append "--scenario $1 --seed $2" || rc=$?
  [ $rc -eq 0 ] || { echo "qemu_matches_host: firmware $1/$2 exited $rc (124: timed out)" >&2; exit 1; }
}

for case in "demo 1" "pipeline 7" "contention 3" "inversion 1" "deadlock 1" "storm 2"; do
  set -- $case; sc=$1; seed=$2
  run_fw "$sc" "$seed" "$tmp/fw.bin"
  "$target" --scenario "$sc" --seed "$seed" --out "$tmp/host.bin" \
    --model-log "$tmp/model.txt" --quiet
  if ! cmp -s "$tmp/fw.bin" "$tmp/host.bin"; then
    echo "qemu_matches_host: $sc seed $seed: firmware stream differs from the host's:" >&2
    cmp "$tmp/fw.bin" "$tmp/host.bin" >&2 || true
    "$dump" "$tmp/fw.bin" > "$tmp/fw.txt" 2>/dev/null || true
    "$dump" "$tmp/host.bin" > "$tmp/host.txt" 2>/dev/null || true
    diff "$tmp/host.txt" "$tmp/fw.txt" | head -5 >&2 || true
    exit 1
  fi
  "$dump" "$tmp/fw.bin" > "$tmp/fw.txt" 2> "$tmp/fw.sum"
  read -r _ _ packets _ events _ drops _ lost _ unexpl _ names _ starts _ stops _ < \
    <(grep '^#' "$tmp/fw.sum")
  model=$(wc -l < "$tmp/model.txt")
  # Decoded events are the model's minus exactly the ring drops, in order.
  missing=$(diff "$tmp/model.txt" "$tmp/fw.txt" | grep -c '^<' || true)
  extra=$(diff "$tmp/model.txt" "$tmp/fw.txt" | grep -c '^>' || true)
  if [ "$events" -eq 0 ] || [ "$lost" -ne 0 ] || [ "$unexpl" -ne 0 ] || [ "$extra" -ne 0 ] ||
     [ "$missing" -ne "$drops" ] || [ $((events + drops)) -ne "$model" ] ||
     [ "$starts" -ne 1 ] || [ "$stops" -ne 1 ] || [ "$names" -lt 5 ]; then
    echo "qemu_matches_host: $sc seed $seed: decoded $(cat "$tmp/fw.sum"); model $model events," \
         "$missing missing, $extra unexpected" >&2
    exit 1
  fi
  echo "qemu_matches_host: $sc seed $seed: $packets packets, $events events, $drops ring drops: identical"
done
