#!/usr/bin/env bash
# Make sure the Debian packages tracewire needs are installed.
# As root: apt-get installs what is missing. Otherwise: print the command.
# Usage: scripts/deps.sh [extra-package ...]
set -euo pipefail

pkgs=(cmake make gcc g++ pkg-config libcmocka-dev
      gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi
      qemu-system-arm babeltrace2 liblttng-ust-dev lttng-tools
      clang libclang-rt-14-dev chromium jq python3 socat cppcheck protobuf-compiler
      libncurses-dev tmux "$@")

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

cmd="apt-get install -y --no-install-recommends ${missing[*]}"
if [ "$(id -u)" -ne 0 ]; then
  echo "tracewire: missing Debian packages: ${missing[*]}" >&2
  echo "tracewire: install them with: sudo apt-get update && sudo $cmd" >&2
  exit 1
fi
echo "tracewire: installing ${missing[*]}" >&2
export DEBIAN_FRONTEND=noninteractive
# A stale or empty package list makes installs fail; refresh at most hourly.
stamp=/var/lib/apt/periodic/tracewire-update
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +60 2>/dev/null)" ]; then
  apt-get update -qq
  mkdir -p "$(dirname "$stamp")" && touch "$stamp"
fi
$cmd -qq >/dev/null
