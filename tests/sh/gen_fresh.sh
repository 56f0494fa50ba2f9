#!/usr/bin/env bash
# The files generated from include/tracewire/events.def are committed; fail
# when one of them differs from what tools/gen/gen_events.py would write now.
# Args: build dir (unused), source dir.
set -euo pipefail
src=${2:-$(dirname "$0")/../..}
command -v python3 >/dev/null || {
  echo "gen_fresh.sh: python3 not found (Debian: python3)" >&2
  [ "${CI:-}" = true ] && exit 1 || exit 77
}
python3 "$src/tools/gen/gen_events.py" --root "$src" --check

# The check must be able to fail: a copy with one changed row is stale.
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/include/tracewire" "$tmp/src/common" "$tmp/src/model" "$tmp/docs"
cp "$src/include/tracewire/events.def" "$tmp/include/tracewire/"
for f in include/tracewire/events_gen.h src/common/events_desc.c src/model/meaning_gen.c docs/events.md; do
  cp "$src/$f" "$tmp/$f"
done
python3 "$src/tools/gen/gen_events.py" --root "$tmp" --check
sed -i 's/"Mutex number"/"Mutex id"/' "$tmp/include/tracewire/events.def"
if python3 "$src/tools/gen/gen_events.py" --root "$tmp" --check 2>/dev/null; then
  echo "gen_fresh.sh: a changed events.def was not reported stale" >&2
  exit 1
fi
# ... and so is one whose meaning of an event changed.
cp "$src/include/tracewire/events.def" "$tmp/include/tracewire/"
sed -i 's/^TW_MEANING(SEM, Give, NONE, GIVE, -, -)$/TW_MEANING(SEM, Give, NONE, ADD, -, -)/' \
  "$tmp/include/tracewire/events.def"
if python3 "$src/tools/gen/gen_events.py" --root "$tmp" --check 2>/dev/null; then
  echo "gen_fresh.sh: a changed meaning was not reported stale" >&2
  exit 1
fi
# The interrupt task numbers are the vocabulary's (TW_TASK_SWITCH_EnterInt,
# TW_TASK_PSEUDO_*), never written out by hand (STYLE.md): no 0xFFFE in C
# outside the generated files, in code (comments may say it; tests check
# the wire's values; uia.h's broadcast address is another 0xFFFE).
if lit=$(cd "$src" && grep -rnI --include='*.c' --include='*.h' --include='*.cpp' -i '0xfffe\b\|0xfffeu' \
           src sim tools examples include firmware firmware-freertos |
         grep -v '^include/tracewire/events_gen.h:\|^src/common/events_desc.c:\|TW_ADDR_BROADCAST' |
         grep -v '^[^:]*:[0-9]*: *\(/\*\|\*\)'); then
  echo "gen_fresh.sh: a literal interrupt task number outside generated code:" >&2
  echo "$lit" >&2
  exit 1
fi
echo "gen_fresh.sh: generated files are fresh"
