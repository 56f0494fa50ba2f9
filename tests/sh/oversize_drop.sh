#!/usr/bin/env bash
# A custom event larger than the target's ring is a drop the host hears of,
# never a silent loss (docs/instrumentation.md, "Events too large to
# record"). tests/oversize/oversize_target.c, a build with a 32-word ring,
# sends through tw_custom_bytes() a 10 KB string (cut to 128 bytes: 35
# words), a task switch, a short string, and another 10 KB string last.
# Decoded with the CLI: two drops, each announced by a DROPS record (the
# first at the time of the task switch after it, the second just before
# TRACE_STOP), the short string and both task switches intact.
# Args: build dir, source dir.
set -euo pipefail
B=$(cd "$1" && pwd)
tw=$B/tools/tracewire
tgt=$B/tests/tw-oversize-target
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "oversize_drop: FAIL: $*" >&2; exit 1; }
if ! command -v python3 >/dev/null; then
  [ "${CI:-}" = true ] && fail "python3 not installed (Debian package python3)"
  echo "SKIP: python3 not installed: install the Debian package 'python3'" >&2
  exit 77
fi
[ -x "$tgt" ] || fail "$tgt not built"

[ "$("$tgt" "$tmp/t.bin")" = "emitted 5 dropped 2" ] || fail "the target script did not run"
"$tw" summary -q "$tmp/t.bin" > "$tmp/summary.txt" || fail "summary: exit $?"
grep -q '^drops  *2 events lost: ring overflow 2 (2 DROPS records), transport 0 (0 packets), unexplained 0$' \
  "$tmp/summary.txt" || fail "summary does not count the two drops: $(grep '^drops' "$tmp/summary.txt")"
"$tw" export -q "$tmp/t.bin" -f json -o "$tmp/t.json" || fail "export: exit $?"
python3 - "$tmp/t.json" <<'PY'
import json, sys
ev = [e for e in json.load(open(sys.argv[1]))['traceEvents'] if e.get('ph') == 'i']
seq = [(e['name'], e['ts'], e['args']) for e in ev if e['name'] in ('Drops', 'Log', 'TraceStop')]
want = [('Drops', 130.0, {'count': 1}), ('Log', 140.0, {'text': 'fits'}),
        ('Drops', 160.0, {'count': 1}), ('TraceStop', 160.0, {'reason': 1})]
if seq != want:
    sys.exit('oversize_drop: FAIL: drops, strings and stop: %r, want %r' % (seq, want))
PY
echo "oversize_drop: OK (two events too large for the ring, two drops announced)"
