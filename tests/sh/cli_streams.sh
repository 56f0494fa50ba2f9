#!/usr/bin/env bash
# Issue 19, items 10 and 11: what an input holds is told by its content,
# not by seeking (standard input and FIFOs, .twt or raw packets, for every
# command, the two-pass ones included), and no failure is silent (a damaged
# input is said even when the per-problem lines are off; an output that
# cannot be written is an error naming it).
# Args: build dir, source dir.
set -uo pipefail
build=$(cd "$1" && pwd)
tw=$build/tools/tracewire
plugins=$build/examples/plugins
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "cli_streams: FAIL: $*" >&2; exit 1; }
lim=60

"$tw" synth -o "$tmp/raw.bin" --packets 400 --control --switches 2>/dev/null || fail synth
"$tw" record --from "$tmp/raw.bin" -o "$tmp/t.twt" -q 2>/dev/null || fail record
mkfifo "$tmp/fifo"

# feed FILE CMD...: CMD reads the FIFO while FILE is written into it
feed() {
  local file=$1
  shift
  cat "$file" > "$tmp/fifo" &
  local cat_pid=$!
  timeout "$lim" "$@"
  local rc=$?
  kill "$cat_pid" 2>/dev/null
  wait "$cat_pid" 2>/dev/null
  return $rc
}

for f in t.twt raw.bin; do
  "$tw" print "$tmp/$f" > "$tmp/want" 2>/dev/null || fail "print $f"
  [ -s "$tmp/want" ] || fail "print $f printed nothing"
  timeout $lim "$tw" print - < "$tmp/$f" > "$tmp/got" 2>"$tmp/err" || fail "print - < $f: $(cat "$tmp/err")"
  cmp -s "$tmp/want" "$tmp/got" || fail "print - < $f differs from print $f"
  cat "$tmp/$f" | timeout $lim "$tw" print - > "$tmp/got" 2>/dev/null || fail "print from a pipe ($f)"
  cmp -s "$tmp/want" "$tmp/got" || fail "print from a pipe differs ($f)"
  feed "$tmp/$f" "$tw" print "$tmp/fifo" > "$tmp/got" 2>"$tmp/err" || fail "print FIFO ($f): $(cat "$tmp/err")"
  cmp -s "$tmp/want" "$tmp/got" || fail "print FIFO differs from print $f"
  # the commands that read a trace twice read a copy of a stream
  "$tw" summary "$tmp/$f" > "$tmp/want" 2>/dev/null
  feed "$tmp/$f" "$tw" summary "$tmp/fifo" > "$tmp/got" 2>"$tmp/err"
  [ $? -eq 0 ] || fail "summary FIFO ($f): $(cat "$tmp/err")"
  cmp -s "$tmp/want" "$tmp/got" || fail "summary of a FIFO differs ($f)"
  feed "$tmp/$f" "$tw" report "$tmp/fifo" -o "$tmp/r.html" 2>"$tmp/err"
  [ $? -eq 0 ] || fail "report FIFO ($f): exit $?: $(cat "$tmp/err")"
  grep -q '</html>' "$tmp/r.html" || fail "report of a FIFO incomplete ($f)"
  timeout $lim "$tw" analyze - < "$tmp/$f" > "$tmp/got" 2>/dev/null || fail "analyze - ($f)"
  "$tw" analyze "$tmp/$f" > "$tmp/want" 2>/dev/null
  cmp -s "$tmp/want" "$tmp/got" || fail "analyze - differs ($f)"
  timeout $lim "$tw" run - --plugin "$plugins/libanalysis.so@an" --param TRACE.an.file=- \
    < "$tmp/$f" > "$tmp/got" 2>/dev/null || fail "run - ($f)"
  "$tw" info - < "$tmp/$f" > "$tmp/got" 2>/dev/null || fail "info - ($f)"
done
"$tw" info - < "$tmp/t.twt" | grep -q '(.twt)' || fail "info - does not see a .twt"

# devices and directories are refused with a message, at once
for bad in /dev/zero /dev/null "$tmp"; do
  timeout 10 "$tw" print "$bad" > /dev/null 2> "$tmp/err"
  rc=$?
  [ $rc -eq 1 ] && [ -s "$tmp/err" ] || fail "print $bad: exit $rc, stderr: $(cat "$tmp/err")"
done

# item 11: exit 3 is never silent, a lost output is an error
head -c 20000 "$tmp/raw.bin" > "$tmp/cut.bin"
printf 'garbage!' >> "$tmp/cut.bin"
tail -c +20001 "$tmp/raw.bin" >> "$tmp/cut.bin"
"$tw" info "$tmp/cut.bin" > /dev/null 2> "$tmp/err"
[ $? -eq 3 ] && grep -q "damaged" "$tmp/err" || fail "info on a damaged input: exit 3 without a word"
"$tw" stats -q "$tmp/cut.bin" > /dev/null 2> "$tmp/err"
[ $? -eq 3 ] && grep -q "damaged" "$tmp/err" || fail "stats -q on a damaged input: silent"
if [ -w /dev/full ]; then
  for cmd in "print" "stats" "info" "analyze" "summary" "sources" "analyze --json"; do
    "$tw" $cmd "$tmp/t.twt" > /dev/full 2> "$tmp/err"
    rc=$?
    [ $rc -eq 1 ] && grep -q "output failed\|results failed" "$tmp/err" ||
      fail "$cmd > /dev/full: exit $rc: $(cat "$tmp/err")"
  done
  "$tw" run "$tmp/t.twt" --plugin "$plugins/libanalysis.so@an" --param TRACE.an.file=- \
    > /dev/full 2> "$tmp/err"
  [ $? -eq 1 ] || fail "run > /dev/full: exit 0"
  "$tw" export "$tmp/t.twt" -f json -o /dev/full 2> "$tmp/err"
  [ $? -eq 1 ] && grep -q "^tracewire: export: /dev/full: write failed" "$tmp/err" ||
    fail "export -o /dev/full: $(cat "$tmp/err")"
  grep -q "t.twt" "$tmp/err" && fail "export -o /dev/full blames the input: $(cat "$tmp/err")"
  "$tw" report "$tmp/t.twt" -o /dev/full 2> "$tmp/err"
  [ $? -eq 1 ] || fail "report -o /dev/full: exit 0"
fi
"$tw" run "$tmp/t.twt" --plugin "$plugins/libanalysis.so@an" \
  --param "TRACE.an.file=$tmp/no/such/dir/x.txt" > /dev/null 2> "$tmp/err"
[ $? -eq 1 ] && grep -q "no/such/dir/x.txt" "$tmp/err" || fail "run into a missing directory: $(cat "$tmp/err")"
echo "cli_streams: ok"
