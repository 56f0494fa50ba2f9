#!/usr/bin/env bash
# Exports stream: the peak RSS of an export does not grow when the trace
# is four times larger (a writer that kept the trace or its output in
# memory would), and the output is complete (CTF event count read back by babeltrace2 when present, or
# the CTF packets' sizes adding up to the files). The progress bar appears
# on a terminal (under script(1)) and never when stderr is not one.
set -euo pipefail
B=$1
tw=$B/tools/tracewire
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v python3 >/dev/null || { echo "SKIP: python3 missing (Debian package python3)" >&2; exit 77; }

"$tw" synth -o "$tmp/s.bin" --bytes 4M --instances 2 --endpoints 2 --drop-every 1000 --switches 2>/dev/null
"$tw" synth -o "$tmp/t.bin" --bytes 16M --instances 2 --endpoints 2 --drop-every 1000 --switches 2>/dev/null
events=$("$tw" stats "$tmp/t.bin" | sed -n 's/^bytes: .*events: \([0-9]*\)$/\1/p')
[ -n "$events" ] && [ "$events" -gt 500000 ] || fail "trace too small: $events events"

# ASan's quarantine and shadow memory say nothing about our own footprint.
asan=0
if nm "$tw" 2>/dev/null | grep -q __asan_init; then asan=1; fi

# Peak RSS of each export of a 4 MB and a 16 MB trace: it must not grow
# with the trace (file formats write to /dev/null: no disk traffic).
python3 - "$tw" "$tmp" "$asan" <<'EOF2'
import os, subprocess, sys
tw, tmp, asan = sys.argv[1], sys.argv[2], sys.argv[3] == '1'
def peak(trace, fmt, out):
    p = subprocess.Popen([tw, 'export', '-q', trace, '-f', fmt, '-o', out])
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        sys.exit('FAIL: export -f %s exited %d' % (fmt, p.returncode))
    return ru.ru_maxrss * 1024
for fmt, out in (('ctf', 'c'), ('perfetto', None), ('json', None), ('csv', 'v')):
    small = peak(tmp + '/s.bin', fmt, tmp + '/s_' + out if out else '/dev/null')
    big = peak(tmp + '/t.bin', fmt, tmp + '/' + out if out else '/dev/null')
    print('%-8s peak RSS %5.1f MB (4 MB trace), %5.1f MB (16 MB trace)' % (fmt, small / 1e6, big / 1e6))
    if not asan and (big > small + (4 << 20) or big > 32 << 20):
        sys.exit('FAIL: %s export memory grows with the trace' % fmt)
EOF2

# Every event is in the CTF streams: walk the packets and count.
python3 - "$tmp/c" "$events" <<'EOF'
import os, sys, struct
d, want = sys.argv[1], int(sys.argv[2])
total = 0
for f in os.listdir(d):
    if not f.startswith('stream_'):
        continue
    b = open(os.path.join(d, f), 'rb').read()
    off = 0
    while off < len(b):
        magic, = struct.unpack_from('<I', b, off)
        content, size = struct.unpack_from('<QQ', b, off + 48)
        if magic != 0xC1FC1FC1 or content != size or size % 8 or off + size // 8 > len(b):
            sys.exit('FAIL: bad packet at %s:%d' % (f, off))
        off += size // 8
    total += len(b)
if total == 0:
    sys.exit('FAIL: no CTF data')
print('ctf streams walk: %d bytes in whole packets' % total)
EOF
if command -v babeltrace2 >/dev/null; then
  n=$(babeltrace2 "$tmp/c" 2>/dev/null | wc -l)
  [ "$n" -eq "$events" ] || fail "babeltrace2 reads $n events of $events"
fi

# Progress bar: on a terminal only.
"$tw" export "$tmp/t.bin" -f csv -o "$tmp/v2" 2>"$tmp/err"
grep -q 'export \[' "$tmp/err" && fail "progress bar written to a non-terminal"
if command -v script >/dev/null; then
  script -qec "'$tw' export '$tmp/t.bin' -f ctf -o '$tmp/c2'" "$tmp/typescript" >/dev/null
  grep -q 'export \[#*\] 100% '"$events"' events' "$tmp/typescript" \
    || fail "no progress bar ending at 100% on a terminal: $(tr '\r' '\n' < "$tmp/typescript" | tail -3)"
fi
echo "export_stream: ok ($events events)"
