#!/usr/bin/env bash
# docs/porting-freertos.md lists every FreeRTOS event trace macro of the
# kernel (FREERTOS_KERNEL_PATH), each exactly once; those the hooks header
# defines are the ones the table says become events, the others say why
# not; and the count the page states is the header's.
# Args: build dir, source dir.
set -euo pipefail
B=$1
S=$2
K=${FREERTOS_KERNEL_PATH:-$(sed -n 's/^FREERTOS_KERNEL_PATH:PATH=//p' "$B/CMakeCache.txt" 2>/dev/null)}
if [ -z "$K" ] || [ ! -f "$K/include/FreeRTOS.h" ]; then
  echo "freertos_macro_table.sh: SKIPPED: no FreeRTOS kernel (FREERTOS_KERNEL_PATH)" >&2
  [ "${CI:-}" = true ] && exit 1
  exit 77
fi
doc=$S/docs/porting-freertos.md
hdr=$S/include/tracewire/hooks/freertos_trace.h
fail() { echo "FAIL: $*" >&2; exit 1; }
kernel=$(grep -ho '#ifndef *trace[A-Za-z_0-9]*' "$K/include/FreeRTOS.h" | awk '{print $2}' |
         grep -v '^trace\(ENTER\|RETURN\)_' | sort -u)
mapped=$(grep -o '#ifndef trace[A-Z_0-9]*' "$hdr" | awk '{print $2}' | sort -u)
n=0 traced=0
for m in $kernel; do
  rows=$(grep -c "^| [0-9]* | \`$m\` |" "$doc" || true)
  [ "$rows" = 1 ] || fail "$m has $rows rows in docs/porting-freertos.md"
  row=$(grep "^| [0-9]* | \`$m\` |" "$doc")
  if grep -qx "$m" <<< "$mapped"; then
    case $row in *'**not traced**'*) fail "$m is mapped by the header but the table says not traced" ;; esac
    traced=$((traced + 1))
  else
    case $row in *'**not traced**'*) ;; *) fail "$m is not in the header but the table maps it" ;; esac
  fi
  n=$((n + 1))
done
for m in $mapped; do
  grep -qx "$m" <<< "$kernel" || fail "the header defines $m, which this kernel does not have"
done
grep -q "$traced of FreeRTOS's $n event trace macros" "$doc" ||
  fail "the page does not say \"$traced of FreeRTOS's $n event trace macros\""
echo "freertos_macro_table.sh: $traced of $n FreeRTOS trace macros traced; the table lists all $n"
