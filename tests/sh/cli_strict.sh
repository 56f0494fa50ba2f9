#!/usr/bin/env bash
# Issue 19, item 9: no silent wrong values on the command line. Every
# number is range-checked (a usage error, exit 2, naming the option or the
# URI part), names that match nothing are errors listing what exists, and
# "-o -" means standard output wherever there is a -o.
# Args: build dir, source dir.
set -uo pipefail
build=$(cd "$1" && pwd)
tw=$build/tools/tracewire
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "cli_strict: FAIL: $*" >&2; exit 1; }
"$tw" synth -o "$tmp/t.bin" --packets 200 --control --switches 2>/dev/null || fail synth
"$tw" record --from "$tmp/t.bin" -o "$tmp/t.twt" -q 2>/dev/null || fail record
t=$tmp/t.twt

# refused STATUS PATTERN CMD...: exit STATUS, a message matching PATTERN,
# in well under the time a command that went ahead would take
refused() {
  local want=$1 pat=$2 rc
  shift 2
  timeout 20 "$@" > "$tmp/out" 2> "$tmp/err" < /dev/null
  rc=$?
  [ "$rc" -eq "$want" ] || fail "exit $rc, want $want: $*: $(head -c 300 "$tmp/err")"
  grep -q -- "$pat" "$tmp/err" || fail "no message matching '$pat': $*: $(head -c 300 "$tmp/err")"
}

# numbers
for bad in "" " 5" "-1" "+5" "0x" "5x" "99999999999999999999" "0x1FFFFFFFF"; do
  refused 2 "--mask '$bad'" "$tw" record --from "$t" -o "$tmp/r.twt" --mask "$bad"
done
for bad in "" "nan" "inf" "-1" "1e3" " 1" "1s" "0x10"; do
  refused 2 "--duration '$bad'" "$tw" record --from "$t" -o "$tmp/r.twt" --duration "$bad"
  refused 2 "--idle '$bad'" "$tw" record --from "$t" -o "$tmp/r.twt" --idle "$bad"
done
for cmd in analyze summary report; do
  for bad in "0" " 5" "5 " "-5" "86400001" "99999999999999999999999" "1.5"; do
    refused 2 "$cmd: --starve-ms '$bad'" "$tw" $cmd --starve-ms "$bad" "$t" -o "$tmp/r.html"
  done
done
refused 2 "--max-events '0'" "$tw" report --max-events 0 "$t" -o "$tmp/r.html"
refused 2 "--max-events '99999999999999999999'" "$tw" report --max-events 99999999999999999999 "$t" -o "$tmp/r.html"
for w in -1 abc 0 1048577 " 1" "0x10"; do
  refused 2 "--window '$w'" "$tw" print --window "$w" "$t"
done
refused 2 "--packet-bytes '10'" "$tw" export "$t" -f ctf -o "$tmp/ctf" --packet-bytes 10
refused 2 "--load-window '-1'" "$tw" export "$t" -f json -o "$tmp/j" --load-window -1
refused 2 "--clock-offset 'x'" "$tw" export "$t" -f ctf -o "$tmp/ctf" --clock-offset x
refused 2 "--every '-1'" "$tw" index "$t" -o "$tmp/i.twt" --every -1
for opt in --packets --instances --drop-every --seed --gap-us --endpoints --start-ticks; do
  refused 2 "synth: $opt 'x'" "$tw" synth -o "$tmp/s.bin" $opt x
  refused 2 "synth: $opt '-1'" "$tw" synth -o "$tmp/s.bin" $opt -1
done
refused 2 "--instances '9'" "$tw" synth -o "$tmp/s.bin" --instances 9
refused 2 "at most 8" "$tw" synth -o "$tmp/s.bin" --instances 4 --endpoints 3
refused 2 "--seed '4294967296'" "$tw" synth -o "$tmp/s.bin" --seed 4294967296

# URIs: a port beyond 16 bits used to listen on port modulo 65536, a baud
# rate beyond 32 bits to wrap
refused 1 "PORT from 0" "$tw" record --from tcp-listen://127.0.0.1:99999 -o "$tmp/r.twt"
refused 1 "PORT from 1" "$tw" record --from tcp://127.0.0.1:0 -o "$tmp/r.twt"
refused 1 "PORT from 1" "$tw" record --from tcp://127.0.0.1:65536 -o "$tmp/r.twt"
refused 1 "expected udp" "$tw" record --from udp://:70000 -o "$tmp/r.twt"
refused 1 "expected serial" "$tw" record --from "serial:///dev/ttyS0?baud=99999999999" -o "$tmp/r.twt"
refused 1 "expected serial" "$tw" record --from "serial:///dev/ttyS0?baud=-9600" -o "$tmp/r.twt"
refused 1 "expected udp" "$tw" synth --to udp://127.0.0.1:99999 --packets 1

# names: event kinds, task names and trace sources that exist nowhere
refused 2 "event=Bogus: no such event kind; the kinds are: .*TaskSwitch" \
  "$tw" print --filter event=Bogus "$t"
refused 2 "task=nobody: no task of that name.*its tasks are:" "$tw" print --filter task=nobody "$t"
refused 2 "no such source; the sources are: .*TASK_SWITCH" "$tw" sources --source nope "$t"
refused 2 "no such source" "$tw" sources --source nope
"$tw" print --filter event=taskswitch "$t" > /dev/null || fail "a known kind (any case) refused"
"$tw" sources --source TASK_SWITCH "$t" > /dev/null || fail "a known source refused"

# -o - is standard output
"$tw" report "$t" -o - > "$tmp/o" 2>/dev/null && grep -q '</html>' "$tmp/o" ||
  fail "report -o - wrote no page"
"$tw" export "$t" -f json -o - > "$tmp/o" 2>/dev/null && grep -q 'traceEvents' "$tmp/o" ||
  fail "export json -o -"
"$tw" index "$t" -o - 2>/dev/null | "$tw" info - > "$tmp/o" 2>/dev/null &&
  grep -q "stopped cleanly" "$tmp/o" || fail "index -o - | info -"
"$tw" synth -o - --packets 3 2>/dev/null | "$tw" print - > /dev/null || fail "synth -o - | print -"
"$tw" record --from "$tmp/t.bin" -o - -q 2>/dev/null | "$tw" print - > "$tmp/p1" 2>/dev/null ||
  fail "record -o - | print -"
"$tw" print "$tmp/t.bin" > "$tmp/p2" 2>/dev/null
cmp -s "$tmp/p1" "$tmp/p2" || fail "record -o - | print - differs from print of the source"
refused 2 "standard output cannot take it" "$tw" export "$t" -f ctf -o -
[ ! -e ./- ] || fail "a file named - was created"
echo "cli_strict: ok"
