#!/usr/bin/env bash
# Writes the seed corpus of the fuzz targets that take whole traces
# (analysis, export, index) and of merge, into fuzz/corpus/<target>/:
#   <scenario>-<us>.bin   a recording of the workload model (sim/, the demo
#                         target) for that many microseconds, raw packets
#   <scenario>.twt        the same through `tracewire record` (a .twt)
#   two.twt               two sources in one .twt (record --from --from)
#   *.flip<N>             a copy with one bit flipped (deterministic)
#   *.cut                 a copy cut short
# Small on purpose (libFuzzer mutates within -max_len=8192), except
# analysis/demo-60ms.twt, the whole `make run` recording, which the replay
# tests (ctest fuzz_replay_analysis) run through every analysis.
#   usage: fuzz/seeds.sh BUILD_DIR
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:?usage: fuzz/seeds.sh BUILD_DIR}
tw=$b/tools/tracewire
target=$b/examples/demo-target/tw-demo-target
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT

# flip FILE N: N copies, each with one bit flipped at a position and bit
# that depend only on the file's size and N (so reruns write the same)
flip() {
  python3 - "$1" "$2" <<'EOF'
import sys
path, n = sys.argv[1], int(sys.argv[2])
data = open(path, 'rb').read()
x = len(data) * 2654435761 % 2**32
for k in range(n):
    x = (x * 1103515245 + 12345) % 2**31
    b = bytearray(data)
    pos = x % len(b)
    b[pos] ^= 1 << (x >> 8) % 8
    open('%s.flip%d' % (path, k + 1), 'wb').write(b)
EOF
}

for t in analysis export index merge; do
  rm -rf "fuzz/corpus/$t"
  mkdir -p "fuzz/corpus/$t"
done
for sc in demo pipeline contention inversion deadlock storm; do
  "$target" --scenario "$sc" --duration 2000 --out "$tmp/$sc-2000.bin" --quiet
  "$target" --scenario "$sc" --duration 5000 --out "$tmp/$sc-5000.bin" --quiet
  "$tw" record --from "$tmp/$sc-2000.bin" -o "$tmp/$sc.twt" -q 2>/dev/null
done
"$tw" record --from "$tmp/deadlock-5000.bin" --from "$tmp/inversion-5000.bin" -o "$tmp/two.twt" -q \
  2>/dev/null
head -c 3000 "$tmp/demo.twt" > "$tmp/demo.twt.cut"

for t in analysis export; do
  d=fuzz/corpus/$t
  cp "$tmp"/*-2000.bin "$tmp"/*-5000.bin "$tmp/demo.twt" "$tmp/storm.twt" "$tmp/two.twt" \
     "$tmp/demo.twt.cut" "$d/"
  for f in "$d"/demo-5000.bin "$d"/deadlock-5000.bin "$d"/storm.twt "$d"/two.twt; do
    flip "$f" 3
  done
done
# the whole demo recording (make run's), for the replay test only
"$target" --scenario demo --out "$tmp/demo60.bin" --quiet
"$tw" record --from "$tmp/demo60.bin" -o fuzz/corpus/analysis/demo-60ms.twt -q 2>/dev/null

d=fuzz/corpus/index
cp "$tmp"/*.twt "$tmp/demo.twt.cut" "$d/"
for f in "$d"/demo.twt "$d"/two.twt "$d"/pipeline.twt; do
  flip "$f" 4
done
# an indexed file (tracewire index, small spacing): the old index is dropped
"$tw" index "$tmp/demo.twt" -o "$d/demo-indexed.twt" --every 512 -q
flip "$d/demo-indexed.twt" 4

# merge: [window 3 bytes, flags] then events of [stream, control, time step]
python3 - fuzz/corpus/merge <<'EOF'
import os, struct, sys
d = sys.argv[1]
def put(name, window, flags, events):
    b = struct.pack('<I', window)[:3] + bytes([flags])
    for s, c, t in events:
        b += struct.pack('<BBh', s, c, t)
    open(os.path.join(d, name), 'wb').write(b)
put('two-streams-w4', 4, 0, [(i % 2, 0, 10 if i % 2 else 7) for i in range(64)])
put('ties-w1', 1, 0, [(i % 3, 3, 0) for i in range(40)])
put('backwards-w16', 16, 0x80, [(i % 4, 0, -5 if i % 5 == 0 else 9) for i in range(100)])
put('burst-then-late', 8, 0, [(0, 0, 1)] * 30 + [(7, 0x80, 1)] * 10 + [(0, 0, 1)] * 5)
put('far-and-near-max', 32, 0x80, [(i % 5, i % 4 | 4, 300 * i) for i in range(80)])
put('sink-fails', 8, 0x48, [(i % 3, 0, 3) for i in range(50)])
EOF
for t in analysis export index merge; do
  echo "fuzz/corpus/$t: $(ls "fuzz/corpus/$t" | wc -l) files, $(du -sk "fuzz/corpus/$t" | cut -f1) KiB"
done
