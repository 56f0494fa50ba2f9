#!/usr/bin/env bash
# The measured tables of docs/performance.md and README.md, kept as `make
# bench-target` and `make size` print them: each file holds them between
#   <!-- bench-target:begin --> ... <!-- bench-target:end -->  (instructions per event)
#   <!-- size:begin --> ... <!-- size:end -->                  (configurations)
# Both are deterministic (QEMU -icount; the linker's map), so CI checks
# them. Throughput numbers are real time and are not kept here.
#   scripts/perf-doc.sh --write   regenerate the tables in place
#   scripts/perf-doc.sh --check   fail, with the diff, when a table is stale (CI)
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:---check}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
BENCH_TARGET_CYCLES_ONLY=1 bash scripts/bench-target.sh --markdown > "$tmp/bench-target"
python3 scripts/size_configs.py --markdown > "$tmp/size"
status=0
for f in docs/performance.md README.md; do
  python3 - "$f" "$tmp" > "$tmp/new" <<'EOF'
import sys
path, tmp = sys.argv[1], sys.argv[2]
text = open(path).read()
for name in ("bench-target", "size"):
    begin, end = "<!-- %s:begin -->\n" % name, "<!-- %s:end -->" % name
    if begin not in text:
        continue
    a = text.index(begin) + len(begin)
    b = text.index(end, a)
    text = text[:a] + open("%s/%s" % (tmp, name)).read() + text[b:]
sys.stdout.write(text)
EOF
  if ! cmp -s "$f" "$tmp/new"; then
    if [ "$mode" = --write ]; then
      cp "$tmp/new" "$f"; echo "perf-doc: wrote $f"
    else
      diff -u "$f" "$tmp/new" >&2 || true
      echo "perf-doc: $f: the measured tables are stale (scripts/perf-doc.sh --write)" >&2
      status=1
    fi
  fi
done
[ $status -eq 0 ] && [ "$mode" = --check ] && echo "perf-doc: docs/performance.md and README.md hold the current tables"
exit $status
