#!/usr/bin/env bash
# `--window N` of print, export and run (issue 19 item 4): `-1` went
# through strtoul to SIZE_MAX, window + 1 wrapped and the merge wrote past
# its storage (print segfaulted). Every bad value is a usage error (exit
# 2) naming the option, with no output; a good one, even the largest,
# prints the same lines as the default.
# Args: build dir, source dir.
set -uo pipefail
build=$(cd "$1" && pwd)
tw=$build/tools/tracewire
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "cli_window: FAIL: $*" >&2; exit 1; }
"$build/examples/scenario/tw-scenario" --cycles 4 -o "$tmp/t.uia" || fail "tw-scenario"
plugin=$build/examples/plugins/libanalysis.so@an

for w in -1 abc 18446744073709551615 99999999999999999999999 0 1048577 ' 5' 5x ''; do
  for cmd in print export run; do
    case $cmd in
      print) args=(print "$tmp/t.uia") ;;
      export) args=(export "$tmp/t.uia" -f json -o "$tmp/t.json") ;;
      run) args=(run "$tmp/t.uia" --plugin "$plugin") ;;
    esac
    timeout 60 "$tw" "${args[@]}" --window "$w" > "$tmp/out" 2> "$tmp/err"
    rc=$?
    [ "$rc" -eq 2 ] || fail "$cmd --window '$w': exit $rc, want 2 (usage)"
    grep -q -- "$cmd: --window '$w'" "$tmp/err" || fail "$cmd --window '$w': stderr does not name the option: $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "$cmd --window '$w': wrote output"
  done
done

"$tw" print "$tmp/t.uia" > "$tmp/default" || fail "print"
for w in 1 1048576; do
  "$tw" print "$tmp/t.uia" --window "$w" > "$tmp/w" || fail "print --window $w: exit $?"
  cmp -s "$tmp/default" "$tmp/w" || fail "print --window $w differs from the default"
done
"$tw" export "$tmp/t.uia" -f json -o "$tmp/t.json" --window 1048576 || fail "export --window max"
"$tw" run "$tmp/t.uia" --plugin "$plugin" --window 1048576 > /dev/null || fail "run --window max"
echo "cli_window: ok"
