#!/usr/bin/env bash
# The bounded soak (CI): the workload model streams a few million events
# over loopback TCP with injected disconnects (resets and closes, mid-
# packet), packets lost while the link is down, flipped framing bits and
# garbage between packets, and (third run) bits flipped anywhere in a
# packet with the payload check on; tw-soak fails unless every event is
# received or reported lost, exactly, and (third run) none was decoded with
# a wrong value (soak/soak.c). `make soak` runs 100 million.
#   tests/sh/soak_short.sh BUILD_DIR SOURCE_DIR   (TW_SOAK_EVENTS to change)
set -euo pipefail
b=$1
n=${TW_SOAK_EVENTS:-2000000}
for seed in 7 8; do
  "$b/soak/tw-soak" --events "$n" --seed "$seed" --disconnect-every 2000 --corrupt-every 500 \
    --timeout 240
done
# payload bit flips anywhere in a packet, with the streamer's payload check:
# flipped packets are counted lost, no event is decoded with a wrong value
"$b/soak/tw-soak" --events "$n" --seed 9 --disconnect-every 2000 --corrupt-every 500 \
  --flip-every 200 --timeout 240
