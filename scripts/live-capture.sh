#!/usr/bin/env bash
# The README's capture of the live view: `tracewire top` in an 80x24 tmux
# pane while the demo target (tw-demo-target, the demo scenario with seed
# 1, paced to the wall clock) runs, captured 4 s in; then q. Prints the
# pane (plain text, as a terminal shows it without colours).
# Usage: scripts/live-capture.sh <builddir>   (Debian: tmux)
set -euo pipefail
cd "$(dirname "$0")/.."
b=$(cd "${1:?usage: scripts/live-capture.sh <builddir>}" && pwd)
command -v tmux >/dev/null || { echo "live-capture: tmux not found (Debian package: tmux)" >&2; exit 1; }
tmp=$(mktemp -d) sock=tw-capture-$$
: > "$tmp/rec.log"
trap 'tmux -L "$sock" kill-server 2>/dev/null || true; rm -rf "$tmp"' EXIT
tmux -L "$sock" -f /dev/null new-session -d -x 80 -y 24 -s top \
  "cd $tmp && TERM=xterm-256color $b/tools/tracewire top tcp-listen://127.0.0.1:0 -o demo.twt 2> rec.log; sleep 30"
port=
for _ in $(seq 200); do
  port=$(sed -n 's/.*(port \([0-9]*\)).*/\1/p' "$tmp/rec.log" | head -1)
  [ -n "$port" ] && break
  sleep 0.05
done
[ -n "$port" ] || { echo "live-capture: top did not listen" >&2; exit 1; }
"$b/examples/demo-target/tw-demo-target" --scenario demo --seed 1 --connect "tcp://127.0.0.1:$port" \
  --wait-start --realtime --duration 8000000 2> /dev/null &
sleep 4.2
tmux -L "$sock" capture-pane -p -t top
tmux -L "$sock" send-keys -t top q
wait
