#!/usr/bin/env bash
# Memory: a generated 2 GiB trace is printed to /dev/null with peak RSS
# under 64 MiB (the decoder streams in memory bounded by configuration).
#   tests/sh/mem_2g.sh BUILD_DIR SOURCE_DIR   (TW_MEM_TEST_BYTES overrides 2G)
set -euo pipefail
B=$(cd "$1" && pwd)
TW=$B/tools/tracewire
size=${TW_MEM_TEST_BYTES:-2G}
limit_kb=$((64 * 1024))
# Under sanitizers RSS measures the shadow memory, not ours: a smaller trace
# still exercises the streaming path, without the RSS bound.
if grep -q '^TW_SANITIZE:STRING=.\+' "$B/CMakeCache.txt" 2>/dev/null; then
  size=${TW_MEM_TEST_BYTES:-64M}
  limit_kb=0
  echo "mem_2g: sanitizer build: $size, RSS bound not checked"
fi
T=$(mktemp -d "${TMPDIR:-/tmp}/tw_mem.XXXXXX")
trap 'rm -rf "$T"' EXIT
free_kb=$(df -Pk "$T" | awk 'NR==2{print $4}')
if [ "$free_kb" -lt $((3 * 1024 * 1024)) ]; then
  echo "mem_2g: only $((free_kb / 1024)) MiB free in $T, need 3 GiB" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi
"$TW" synth --bytes "$size" --pkt-bytes 4096 --drop-every 100000 -o "$T/big.bin"
bytes=$(stat -c %s "$T/big.bin")
# peak RSS of the child, from the kernel's own accounting
python3 - "$TW" "$T/big.bin" "$limit_kb" <<'PY'
import resource, subprocess, sys, time
t0 = time.time()
with open("/dev/null", "wb") as null:
    rc = subprocess.call([sys.argv[1], "print", "-q", sys.argv[2]], stdout=null)
dt = time.time() - t0
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB on Linux
print(f"mem_2g: print exit {rc}, {dt:.1f} s, peak RSS {rss / 1024:.1f} MiB")
if rc != 0:
    sys.exit(f"mem_2g: print failed ({rc})")
limit = int(sys.argv[3])
if limit and rss >= limit:
    sys.exit(f"mem_2g: peak RSS {rss} KiB >= {limit} KiB")
PY
echo "mem_2g: $bytes bytes printed"
