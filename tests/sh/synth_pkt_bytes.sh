#!/usr/bin/env bash
# `tracewire synth --pkt-bytes N` (issue 19 item 5): below 20 the packet
# ended before its header and synth wrote past its buffer (ASan: global
# overflow); at 512 the NAME records and the CUSTOM_DECL were silently left
# out. A size that cannot hold one record is a usage error naming the
# minimum, with no file made; from the minimum up every packet size
# carries the whole preamble and `print` decodes it without a complaint.
# Args: build dir, source dir.
set -uo pipefail
build=$(cd "$1" && pwd)
tw=$build/tools/tracewire
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "synth_pkt_bytes: FAIL: $*" >&2; exit 1; }

for n in 1 19 20 71 0 65536 -1 abc ''; do
  timeout 60 "$tw" synth -o "$tmp/x" --pkt-bytes "$n" 2> "$tmp/err"
  rc=$?
  [ "$rc" -eq 2 ] || fail "--pkt-bytes '$n': exit $rc, want 2 (usage)"
  grep -q -- "synth: --pkt-bytes '$n': want 72 to 65535 bytes" "$tmp/err" ||
    fail "--pkt-bytes '$n': stderr does not name the option and the minimum: $(cat "$tmp/err")"
  [ ! -e "$tmp/x" ] || fail "--pkt-bytes '$n': made the output file"
done

for n in 72 73 100 512 1024 65535; do
  timeout 60 "$tw" synth -o "$tmp/s.bin" --pkt-bytes "$n" --packets 200 --instances 2 \
    2> "$tmp/err" || fail "--pkt-bytes $n: exit $?: $(cat "$tmp/err")"
  timeout 60 "$tw" print "$tmp/s.bin" > "$tmp/p.txt" 2> "$tmp/err" ||
    fail "--pkt-bytes $n: print exit $?: $(head -3 "$tmp/err")"
  [ ! -s "$tmp/err" ] || fail "--pkt-bytes $n: print complains: $(head -3 "$tmp/err")"
  names=$(grep -c ' Name: {' "$tmp/p.txt")
  decls=$(grep -c ' CustomDecl: {' "$tmp/p.txt")
  [ "$names" -eq 12 ] && [ "$decls" -eq 2 ] ||
    fail "--pkt-bytes $n: $names NAME records (want 6 per stream), $decls CUSTOM_DECL (want 2)"
  grep -q ' Sensor: { channel = ' "$tmp/p.txt" || fail "--pkt-bytes $n: the custom event is not decoded"
done
echo "synth_pkt_bytes: ok"
