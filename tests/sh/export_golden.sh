#!/usr/bin/env bash
# Golden files: a small fixed synthetic trace (tests/golden/export_input.bin) (two endpoints, two cores,
# every kind, drops, a 32-bit wrap) exported to every format must give
# exactly the bytes in tests/golden/export/. After an intended change of a
# format, regenerate them with TW_UPDATE_GOLDEN=1 and review the diff.
# The CTF streams are in the host's byte order: the goldens are little-endian.
set -euo pipefail
B=$1
S=$2
tw=$B/tools/tracewire
G=$S/tests/golden/export
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

if [ "$(printf '\1\0' | od -An -tu2 | tr -d ' ')" != 1 ]; then
  echo "SKIP: big-endian host; the CTF goldens are little-endian" >&2
  exit 77
fi
# The input is checked in too (made by synth), so a change to the synthetic
# target does not move the goldens; TW_UPDATE_GOLDEN=1 remakes it as well.
IN=$S/tests/golden/export_input.bin
if [ "${TW_UPDATE_GOLDEN:-}" = 1 ]; then
  "$tw" synth -o "$IN" --packets 8 --instances 2 --endpoints 2 --drop-every 20 \
    --start-ticks 0xFFFFF800 --ts32 --control --switches 2>/dev/null
fi
cp "$IN" "$tmp/t.bin"
mkdir "$tmp/out"
"$tw" export -q "$tmp/t.bin" -f ctf -o "$tmp/out/ctf" --packet-bytes 8192
"$tw" export -q "$tmp/t.bin" -f perfetto -o "$tmp/out/trace.perfetto-trace"
"$tw" export -q "$tmp/t.bin" -f json -o "$tmp/out/trace.json"
"$tw" export -q "$tmp/t.bin" -f csv -o "$tmp/out/csv"

if [ "${TW_UPDATE_GOLDEN:-}" = 1 ]; then
  rm -rf "$G"
  mkdir -p "$(dirname "$G")"
  cp -r "$tmp/out" "$G"
  echo "export_golden: rewrote $G"
  exit 0
fi
[ -d "$G" ] || fail "no golden files in $G (generate them with TW_UPDATE_GOLDEN=1)"
diff <(cd "$G" && find . -type f | sort) <(cd "$tmp/out" && find . -type f | sort) \
  || fail "the set of exported files differs from the goldens"
n=0
while read -r f; do
  cmp "$G/$f" "$tmp/out/$f" || fail "$f differs from its golden"
  n=$((n + 1))
done < <(cd "$G" && find . -type f | sort)
# The golden Perfetto file itself passes protoc and Perfetto's rules.
if command -v protoc >/dev/null && [ -f "${TW_PERFETTO_PROTO:-}" ]; then
  python3 "$S/tests/perfetto_check.py" "$TW_PERFETTO_PROTO" "$G/trace.perfetto-trace" >/dev/null \
    || fail "the golden Perfetto file fails tests/perfetto_check.py"
elif [ "${CI:-}" = true ]; then
  fail "protoc or perfetto_trace.proto missing (Debian package protobuf-compiler; PERFETTO_PROTO)"
else
  echo "export_golden: NOTE: Perfetto rules not checked: protoc (Debian package 'protobuf-compiler') or PERFETTO_PROTO missing" >&2
fi
echo "export_golden: ok ($n files byte for byte)"
