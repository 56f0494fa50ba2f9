#!/usr/bin/env bash
# Issue 19: a hang is a finding. Every command of the CLI over a corpus of
# damaged inputs (bit-flipped, cut, zeroed, chunk headers broken, random
# bytes, empty, special files, and the reproducers of ../shared/repro) ends
# in bounded time: a timeout per run, far above what these inputs take.
# Each run must also end with an exit status that means something (0, 1
# with a message, 3 with a message; never a usage error for a valid
# command line, never a signal) and without a sanitizer report (the
# ASan+UBSan suite runs this in CI, so each report there is fatal).
# Args: build dir, source dir.   TW_DAMAGED_LIMIT: seconds per run (60).
set -uo pipefail
build=$(cd "$1" && pwd)
src=$2
tw=$build/tools/tracewire
target=$build/examples/demo-target/tw-demo-target
plugin=$build/examples/plugins/libanalysis.so
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "cli_damaged: FAIL: $*" >&2; exit 1; }
limit=${TW_DAMAGED_LIMIT:-60}
c=$tmp/corpus
mkdir -p "$c"

# ---- the corpus -------------------------------------------------------------
"$target" --scenario demo --duration 20000 --out "$tmp/demo.bin" --quiet || fail "demo target"
"$target" --scenario deadlock --duration 8000 --out "$tmp/deadlock.bin" --quiet || fail "demo target"
"$tw" record --from "$tmp/demo.bin" -o "$tmp/demo.twt" -q 2>/dev/null || fail record
"$tw" record --from "$tmp/demo.bin" --from "$tmp/deadlock.bin" -o "$tmp/two.twt" -q 2>/dev/null ||
  fail "record two sources"
"$tw" index "$tmp/demo.twt" -o "$tmp/indexed.twt" --every 2K -q || fail index
"$tw" synth -o "$tmp/synth.bin" --packets 300 --control --switches --drop-every 50 \
  --instances 2 --endpoints 2 2>/dev/null || fail synth
python3 - "$c" "$tmp"/demo.bin "$tmp"/deadlock.bin "$tmp"/demo.twt "$tmp"/two.twt \
  "$tmp"/indexed.twt "$tmp"/synth.bin <<'EOF'
import os, random, struct, sys
out, files = sys.argv[1], sys.argv[2:]
rng = random.Random(19)
def put(name, data):
    open(os.path.join(out, name), 'wb').write(bytes(data))
for f in files:
    base = os.path.basename(f)
    data = open(f, 'rb').read()
    put(base, data)
    for k in range(4):                      # one bit flipped
        b = bytearray(data)
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        put('%s.flip%d' % (base, k), b)
    b = bytearray(data)                     # many bits flipped
    for _ in range(len(b) // 500 + 1):
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    put(base + '.flips', b)
    for frac in (0.01, 0.5, 0.97):          # cut short
        put('%s.cut%d' % (base, int(frac * 100)), data[:int(len(data) * frac)])
    b = bytearray(data)                     # a zeroed region
    at = rng.randrange(len(b) // 2)
    b[at:at + 3000] = bytes(min(3000, len(b) - at))
    put(base + '.zeros', b)
    if data.startswith(b'TWTRACE\0'):       # chunk headers broken: length, check, magic
        offs, off = [], 32
        while off + 24 <= len(data):
            offs.append(off)
            off += 24 + struct.unpack_from('<I', data, off + 8)[0]
        for k, field in enumerate((8, 12, 0)):
            b = bytearray(data)
            o = offs[len(offs) // (k + 2)]
            b[o + field + rng.randrange(4)] ^= 0xFF
            put('%s.chunk%d' % (base, k), b)
        b = bytearray(data)                 # the END's TOC offset points anywhere
        b[-8:] = struct.pack('<Q', rng.randrange(len(b)))
        put(base + '.toc', b)
put('empty', b'')
put('one-byte', b'\xa0')
put('twt-magic-only', b'TWTRACE\0')
put('random', bytes(rng.randrange(256) for _ in range(50000)))
put('packet-headers', b'\xa0\x00\x00\x40' * 5000)       # headers that never have a footer
put('huge-length', b'\xa7\xff\xff\xfc' + bytes(100))
EOF
repro=$src/../shared/repro
[ -d "$repro" ] && cp "$repro"/* "$c/" && chmod u+w "$c"/*
mkdir "$c/a-directory"

# ---- every command over every input ------------------------------------------
runs=0
check() { # FILE NAME CMD...: one bounded run
  local file=$1 name=$2 rc
  shift 2
  timeout -s KILL "$limit" "$@" > /dev/null 2> "$tmp/err" < /dev/null
  rc=$?
  runs=$((runs + 1))
  [ $rc -ne 137 ] || fail "$name on $(basename "$file"): killed after ${limit}s: a hang ($*)"
  if grep -q 'ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer' "$tmp/err"; then
    grep -m1 -A10 'ERROR: \|runtime error:' "$tmp/err" >&2
    fail "$name on $(basename "$file"): sanitizer report"
  fi
  case $rc in
    0) ;;
    1|3) [ -s "$tmp/err" ] || fail "$name on $(basename "$file"): exit $rc and not a word on stderr" ;;
    *) tail -3 "$tmp/err" >&2; fail "$name on $(basename "$file"): exit $rc: $*" ;;
  esac
}
for f in "$c"/*; do
  check "$f" print "$tw" print "$f"
  check "$f" print-window "$tw" print --window 1 --filter time=0.001..0.004 "$f"
  check "$f" stats "$tw" stats "$f"
  check "$f" info "$tw" info "$f"
  check "$f" sources "$tw" sources --brief "$f"
  check "$f" summary "$tw" summary "$f"
  check "$f" analyze "$tw" analyze --json --starve-ms 1 "$f"
  check "$f" report "$tw" report "$f" -o "$tmp/r.html"
  for fmt in ctf perfetto json csv; do
    check "$f" "export $fmt" "$tw" export "$f" -f $fmt -o "$tmp/x-$fmt" --window 3
  done
  check "$f" index "$tw" index "$f" -o "$tmp/i.twt"
  check "$f" run "$tw" run "$f" --plugin "$plugin@an" --param TRACE.an.file=-
done
# special files: refused or read, at once
mkfifo "$tmp/fifo"
( cat "$c/demo.twt.flips" > "$tmp/fifo" & )
check "$tmp/fifo" "report from a FIFO" "$tw" report "$tmp/fifo" -o "$tmp/r.html"
for dev in /dev/null /dev/zero /dev/urandom; do
  check "$dev" print "$tw" print "$dev"
  check "$dev" summary "$tw" summary "$dev"
done
echo "cli_damaged: ok ($(ls "$c" | wc -l) inputs, $runs runs, each within ${limit}s)"
