# Thin front door over CMake. Every target first makes sure the Debian
# packages it needs are there (scripts/deps.sh installs them as root, or
# prints the exact apt-get line otherwise).
BUILD    ?= build
SANITIZE ?=
JOBS     ?= $(shell nproc 2>/dev/null || echo 2)
CMAKE_FLAGS ?=
# The FreeRTOS kernel for the FreeRTOS tests and example (cmake/freertos.cmake):
# the copy beside this tree when there is one.
FREERTOS_KERNEL_PATH ?= $(abspath $(wildcard ../shared/third_party/FreeRTOS-Kernel))
# Perfetto's protos for the tests that decode the Perfetto export with protoc.
PERFETTO_PROTO ?= $(abspath $(wildcard ../shared/third_party/perfetto/perfetto_trace.proto))

.PHONY: all build run test bench bench-target size cross deps clean run-qemu soak fuzz

all: build

deps:
	@bash scripts/deps.sh

$(BUILD)/CMakeCache.txt:
	cmake -S . -B $(BUILD) -DTW_SANITIZE=$(SANITIZE) -DFREERTOS_KERNEL_PATH=$(FREERTOS_KERNEL_PATH) -DPERFETTO_PROTO=$(PERFETTO_PROTO) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The main job: the demo (README.md "make run"): the RTOS workload model
# streams over loopback TCP to `tracewire record`; CTF, Perfetto, the HTML
# report and a summary come out in out/<scenario>/. SCENARIO=deadlock
# (or pipeline, contention, inversion, storm) and SEED=n pick another run.
run: build
	@bash scripts/run-demo.sh $(BUILD)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS) $(CTEST_ARGS)

bench: build
	@bash bench/run.sh $(BUILD)

# What tracing costs a Cortex-M, under QEMU: instructions per event (with
# -icount) beside the anchors' published figures, and the RTT and UART
# paths' throughput (scripts/bench-target.sh, docs/performance.md).
bench-target: build
	@bash scripts/bench-target.sh $(BUILD)

# Size of the freestanding target code for a Cortex-M, as linked objects.
size: deps
	@bash scripts/cross.sh size

cross: deps
	@bash scripts/cross.sh build

# The same workload model as firmware for a Cortex-M3 in QEMU (mps2-an385),
# streaming over its UART to `tracewire record` (scripts/run-qemu.sh);
# TRANSPORT=rtt: over RTT, read through QEMU's gdbstub (record --from
# rtt+gdb://), with the same decoded events.
run-qemu: build
	@bash scripts/run-qemu.sh $(BUILD)

# The long soak (not in `make test`): 100 million events of the workload
# model over loopback TCP with injected disconnects and corruption; every
# event must be received or reported lost (soak/soak.c). SOAK_EVENTS to change.
SOAK_EVENTS ?= 100000000
soak: build
	$(BUILD)/soak/tw-soak --events $(SOAK_EVENTS) --seed 1 --timeout 5400

# libFuzzer targets (fuzz/), each for FUZZ_SECONDS (scripts/fuzz.sh).
FUZZ_SECONDS ?= 60
fuzz: deps
	@FUZZ_SECONDS=$(FUZZ_SECONDS) BUILD=build-fuzz bash scripts/fuzz.sh

clean:
	rm -rf $(BUILD) build-*
