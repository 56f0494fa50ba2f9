#!/usr/bin/env bash
# docs/demo-report.png, the README's picture of `make run`'s report: the
# demo's out/demo/report.html in headless Chromium, zoomed onto its first
# finding (?keepzoom keeps the view the page's self-test leaves there).
# Usage: scripts/demo-screenshot.sh <builddir>   (runs the demo first)
set -euo pipefail
cd "$(dirname "$0")/.."
b=${1:?usage: scripts/demo-screenshot.sh <builddir>}
chrome=$(command -v chromium || command -v chromium-browser) ||
  { echo "demo-screenshot: chromium not found (Debian package: chromium)" >&2; exit 1; }
OUT=out/demo SCENARIO=demo SEED=1 bash scripts/run-demo.sh "$b" > /dev/null
profile=$(mktemp -d); trap 'rm -rf "$profile"' EXIT
timeout 120 "$chrome" --headless --no-sandbox --disable-gpu --disable-background-networking \
  --disable-component-update --no-first-run --disable-sync --hide-scrollbars \
  --user-data-dir="$profile" --run-all-compositor-stages-before-draw --virtual-time-budget=10000 \
  --window-size=1400,1300 --screenshot="$PWD/docs/demo-report.png" \
  "file://$PWD/out/demo/report.html?keepzoom" 2> /dev/null
echo "demo-screenshot: wrote docs/demo-report.png"
