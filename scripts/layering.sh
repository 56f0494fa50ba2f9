#!/usr/bin/env bash
# The host's layers (docs/architecture.md), checked from the #include lines:
#   base (target, common, port, the top-level headers)
#   -> io -> wire -> twt -> model -> export | analysis -> trace -> tools
# A file may include its own layer and any layer below it; never one above,
# and export and analysis (peers) never each other. Every file under src/
# and include/tracewire/ is scanned; a folder that is no known layer fails
# too, so a new one is placed on purpose. Prints FILE:LINE and both layers
# for each wrong include; exit 1 if there is any.
#   usage: scripts/layering.sh [SOURCE_ROOT]
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
layers="io wire twt model export analysis trace"
unknown=0
for d in src/*/ include/tracewire/*/; do
  d=${d%/}
  case " target common port compat hooks $layers " in
    *" ${d##*/} "*) ;;
    *) echo "$d: not a known layer folder (docs/architecture.md)"; unknown=1 ;;
  esac
done
# The top-level headers of the plugin ABI (tracewire/mti.h, mti_plugin.h)
# belong to model: they include its headers.
find src include/tracewire -type f \( -name '*.c' -o -name '*.h' \) | LC_ALL=C sort |
  xargs grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]' /dev/null |
  awk -v unknown="$unknown" '
  BEGIN {
    n = split("base io wire twt model export analysis trace", L, " ")
    for (i = 1; i <= n; i++) rank[L[i]] = i
    rank["analysis"] = rank["export"]  # peers
    owner["tracewire/mti.h"] = "model"; owner["tracewire/mti_plugin.h"] = "model"
    base["target"] = base["common"] = base["port"] = 1
    bad = 0
  }
  # the layer of a file of the tree, "" if it is in no known folder
  function layer_of_file(path,   p, k) {
    k = split(path, p, "/")
    if (p[1] == "src") {
      if (p[2] in base) return "base"
      return (p[2] in rank && k > 2) ? p[2] : ""
    }
    if (k == 3) return ("tracewire/" p[3] in owner) ? owner["tracewire/" p[3]] : "base"
    if (p[3] == "compat" || p[3] == "hooks") return "base"
    return (p[3] in rank && p[3] != "base") ? p[3] : ""
  }
  # the layer an include names; "." for a file of the includer s own folder
  function layer_of_include(inc,   p, k) {
    k = split(inc, p, "/")
    if (p[1] == "tracewire") {
      if (k == 2) return (inc in owner) ? owner[inc] : "base"
      if (p[2] == "compat" || p[2] == "hooks") return "base"
      return (p[2] in rank && p[2] != "base") ? p[2] : "?"
    }
    if (k > 1 && p[1] in base) return "base"
    if (k > 1 && p[1] in rank && p[1] != "base") return p[1]
    return "."
  }
  {
    file = $0; sub(/:.*/, "", file)
    rest = substr($0, length(file) + 2)
    line = rest; sub(/:.*/, "", line)
    text = substr(rest, length(line) + 2)
    if (!match(text, /[<"][^>"]+[>"]/)) next
    inc = substr(text, RSTART + 1, RLENGTH - 2)
    angle = substr(text, RSTART, 1) == "<"
    if (angle && inc !~ /^tracewire\//) next   # system headers
    from = layer_of_file(file)
    if (from == "") {
      if (!(file in told)) {
        printf "%s: not in a known layer (src/{target,common,port,io,wire,twt,model,export,analysis,trace}, include/tracewire/<layer>/; docs/architecture.md)\n", file
        told[file] = 1; bad++
      }
      next
    }
    to = layer_of_include(inc)
    if (to == ".") next
    if (to == "?") {
      printf "%s:%s: includes %s, which is in no known layer\n", file, line, inc; bad++; next
    }
    if (to == from || rank[to] < rank[from]) next
    if (rank[to] == rank[from])
      printf "%s:%s: layer %s includes %s from layer %s: the two are peers and may not depend on each other\n", file, line, from, inc, to
    else
      printf "%s:%s: layer %s includes %s from layer %s, which is above it\n", file, line, from, inc, to
    bad++
  }
  END {
    bad += unknown
    if (bad) { printf "layering: %d problem(s); the layers: docs/architecture.md\n", bad; exit 1 }
  }'
echo "layering: ok (base -> io -> wire -> twt -> model -> export, analysis -> trace)"
