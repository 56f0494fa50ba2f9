#!/usr/bin/env bash
# `make run-qemu`: the demo (scripts/run-demo.sh) with the workload model's
# firmware on a Cortex-M3 under QEMU (mps2-an385) as the target: UART0 is
# connected to `tracewire record` listening on loopback TCP, whose commands
# (target info, START) reach the firmware over the same UART; the firmware
# ends the scenario itself (semihosting exit), QEMU closes the socket and
# the recorder closes the trace. Then the same exports, report and summary
# as `make run`, in out/qemu-<scenario>/.
# TRANSPORT=rtt: the firmware streams over RTT instead, which the recorder
# reads through QEMU's gdbstub (record --from rtt+gdb://); out/qemu-rtt-*.
# Usage: scripts/run-qemu.sh <builddir>   (SCENARIO=demo SEED=1 TRANSPORT=uart by default)
set -euo pipefail
TARGET=qemu exec bash "$(dirname "$0")/run-demo.sh" "$@"
