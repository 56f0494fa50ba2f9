#!/usr/bin/env bash
# The HTML report in a real browser: headless Chromium opens a report of
# a scripted trace (planted priority inversion, deadlock, ring drops) and
# of a clean one and of a random two-core one, takes screenshots, and dumps the DOM after the page's
# script wrote its self-test record (#tw-selftest). Checked: no script
# error (window.onerror records them), every lane and all twelve seed-002
# markers drawn, the findings listed, clicking a finding zooms the
# timeline onto its window, recurring findings are listed as groups that
# expand to every instance (a click zooms onto one), the clean trace
# reports nothing, and the file
# references nothing outside itself.
set -euo pipefail
B=$1
S=$2
tw=$B/tools/tracewire
scn=$B/examples/scenario/tw-scenario
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

chrome=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$chrome" ]; then
  if [ "${CI:-}" = true ]; then fail "chromium not installed (Debian package: chromium)"; fi
  echo "SKIP: *** chromium not found: install the Debian package 'chromium' to run this test ***" >&2
  exit 77
fi
command -v python3 >/dev/null || fail "python3 needed (Debian package: python3)"

browse() { # browse OUT_DOM OUT_PNG URL
  local flags=(--headless --no-sandbox --disable-gpu --disable-background-networking
               --disable-component-update --no-first-run --disable-sync --hide-scrollbars
               --user-data-dir="$tmp/profile" --run-all-compositor-stages-before-draw
               --virtual-time-budget=10000 --window-size=1400,1300)
  rm -rf "$tmp/profile"
  timeout 120 "$chrome" "${flags[@]}" --dump-dom "$3" > "$1" 2> "$tmp/chrome.err" ||
    { tail -5 "$tmp/chrome.err" >&2; fail "chromium --dump-dom failed"; }
  rm -rf "$tmp/profile"
  timeout 120 "$chrome" "${flags[@]}" --screenshot="$2" "$3" 2> "$tmp/chrome.err" ||
    { tail -5 "$tmp/chrome.err" >&2; fail "chromium --screenshot failed"; }
}

"$scn" --cycles 20 --inversion 5 --drops 12 --deadlock -o "$tmp/demo.uia"
"$tw" report "$tmp/demo.uia" -o "$tmp/demo.html" 2>/dev/null || fail "report exit $?"
"$tw" synth -o "$tmp/two.uia" --packets 60 --instances 2 2>/dev/null  # two cores, random events
"$tw" report "$tmp/two.uia" -o "$tmp/two.html" 2>/dev/null || fail "report (two cores) exit $?"
"$tw" synth -o "$tmp/many.uia" --bytes 2M --switches 2>/dev/null  # recurring findings
"$tw" report "$tmp/many.uia" -o "$tmp/many.html" 2>/dev/null || fail "report (recurring findings) exit $?"
"$tw" analyze --json "$tmp/many.uia" > "$tmp/many.json" 2>/dev/null || fail "analyze (recurring findings) exit $?"
"$scn" --cycles 10 -o "$tmp/clean.uia"
"$tw" report "$tmp/clean.uia" -o "$tmp/clean.html" 2>/dev/null || fail "report (clean) exit $?"

# Self-contained: no attribute or style that loads anything.
for f in "$tmp/demo.html" "$tmp/clean.html"; do
  if grep -Eiq '(src|href)=|url\(|@import|https?://' "$f"; then
    grep -Eio '.{20}((src|href)=|url\(|@import|https?://).{20}' "$f" | head -3 >&2
    fail "$f references something outside itself"
  fi
done

browse "$tmp/demo.dom" "$tmp/demo.png" "file://$tmp/demo.html"
browse "$tmp/clean.dom" "$tmp/clean.png" "file://$tmp/clean.html"
browse "$tmp/two.dom" "$tmp/two.png" "file://$tmp/two.html"
browse "$tmp/many.dom" "$tmp/many.png" "file://$tmp/many.html"
for p in "$tmp/demo.png" "$tmp/clean.png" "$tmp/two.png" "$tmp/many.png"; do
  [ "$(stat -c %s "$p")" -gt 30000 ] || fail "$p: screenshot missing or blank"
done

python3 - "$tmp/demo.dom" "$tmp/clean.dom" "$tmp/two.dom" "$tmp/many.dom" "$tmp/many.json" <<'PY'
import html, json, re, sys

def selftest(path):
    dom = open(path, encoding="utf-8").read()
    if 'data-tw-ready="1"' not in dom:
        sys.exit(f"FAIL: {path}: the page's script did not finish")
    if re.search(r"<body[^>]*data-tw-errors", dom):
        m = re.search(r'<pre id="tw-errors"[^>]*>(.*?)</pre>', dom, re.S)
        sys.exit(f"FAIL: {path}: script errors: {m.group(1) if m else '?'}")
    m = re.search(r'<pre id="tw-selftest"[^>]*>(.*?)</pre>', dom, re.S)
    if not m:
        sys.exit(f"FAIL: {path}: no self-test record")
    return dom, json.loads(html.unescape(m.group(1)))

dom, r = selftest(sys.argv[1])
assert r["errors"] == [], r["errors"]
want = {"task:control", "task:sensor", "task:comms", "task:ui", "task:logger", "task:idle",
        "irq:ADC", "irq:UART", "irq:SysTick", "mutex:bus_lock", "mutex:cfg_lock",
        "mutex:log_lock", "sem:adc_ready", "event:rx_event", "msem:rx_msem",
        "mevent:io_mevent", "asem:flush_asem", "rsem:buf_pool"}
missing = want - set(r["laneNames"])
assert not missing, f"lanes missing: {missing}"
assert r["laneNames"][0] == "task:control", "highest priority task first"
markers = ["Up", "Down", "Push", "UpBlock", "DownBlock", "UpUp", "UpPush", "UpUpPush",
           "Inc", "Dec", "Wait", "Pass"]
nodraw = [m for m in markers if r["glyphs"].get(m, 0) == 0]
assert not nodraw, f"markers not drawn: {nodraw}"
assert r["legend"] == 12
for m in markers:
    assert f'data-marker="{m}"' in dom, f"legend lacks {m}"
kinds = re.findall(r'data-kind="([a-z_]+)"', dom)
assert kinds.count("priority_inversion") == 1, kinds
assert kinds.count("deadlock") == 1, kinds
assert r["findings"] == r["findingItems"] == len(kinds)
z = r["clickZoom"]
assert z["changed"] and z["v0"] <= z["f0"] and z["v1"] >= z["f1"], z
assert z["v1"] - z["v0"] < 3 * (z["f1"] - z["f0"]) + 100000, f"not zoomed onto the finding: {z}"
assert re.search(r"<td>ring</td><td>7</td>", dom), "loss table lacks the DROPS record"

dom, r = selftest(sys.argv[2])
assert r["findings"] == 0 and r["findingItems"] == 0, r
assert "nothing found" in dom
assert r["glyphs"].get("UpBlock", 0) == 0 and r["glyphs"].get("Push", 0) > 0
dom, r = selftest(sys.argv[3])
assert r["cores"] == 2 and r["cpuCharts"] == 2, (r["cores"], r["cpuCharts"])
# recurring findings: one item per group, every instance embedded, a group
# expands (50 at a time) and a click on an instance zooms onto it
dom, r = selftest(sys.argv[4])
a = json.load(open(sys.argv[5]))
assert r["errors"] == [], r["errors"]
assert r["findings"] == r["findingItems"] == len(a["finding_groups"]) < 30, (r["findings"], len(a["finding_groups"]))
assert r["instances"] == r["findingsTotal"] == len(a["findings"]) > 100, (r["instances"], len(a["findings"]))
z = r["instanceZoom"]
assert z["count"] > 50 and z["listed"] == 50 and z["more"], z
assert z["v0"] <= z["i0"] and z["v1"] >= z["i1"], f"not zoomed onto the instance: {z}"
assert z["v1"] - z["v0"] < 3 * (z["i1"] - z["i0"]) + 100000, f"not zoomed onto the instance: {z}"
counts = [int(c) for c in re.findall(r'<span class="n" title="instances">(\d+)\u00d7</span>', dom.replace("&times;", "\u00d7"))]
assert counts == [g["count"] for g in a["finding_groups"]], (counts, [g["count"] for g in a["finding_groups"]])
print("report in chromium: lanes", len(want), "markers 12, findings ok, clean trace clean,",
      len(a["findings"]), "recurring findings in", len(a["finding_groups"]), "groups, expand and zoom ok")
PY
# Keep the demo screenshot where the docs can pick it up.
cp "$tmp/demo.png" "$B/report_chromium.png"
