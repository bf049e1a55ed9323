# perfx: the two commands that work on a fresh machine are `make demo` and `make test`.
# Both install what is needed (scripts/setup, apt-get only), build, then run.

PRESET ?= dev
BUILD_DIR ?= build
JOBS ?= $(shell nproc)

.PHONY: all setup configure build test unit demo bench asan fuzz format clean

all: build

setup:
	@bash scripts/setup

configure:
	@cmake --preset $(PRESET) >/dev/null

build: setup configure
	@cmake --build --preset $(PRESET) -j $(JOBS)

# Every test: unit, live (real kernel events), golden, interop (Linux perf), CLI, fuzz-corpus replay.
test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) --timeout 900

unit: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS) -L unit

demo: build
	@bash scripts/demo $(BUILD_DIR)

bench: build
	@bash bench/run_all.sh $(BUILD_DIR)

# The whole suite under ASan + UBSan (clang). ASAN_OPTIONS/UBSAN_OPTIONS make any report fatal.
# ASAN_CMAKE_ARGS=-DPERFX_FUZZ=ON also builds the libFuzzer targets in build-asan (.ci/run).
asan: setup
	@cmake --preset asan $(ASAN_CMAKE_ARGS) >/dev/null && cmake --build --preset asan -j $(JOBS)
	@cd build-asan && ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
	  UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/fuzz/lsan.supp \
	  ctest --output-on-failure -j $(JOBS) --timeout 900 $(ASAN_CTEST_ARGS)

# libFuzzer targets (clang, ASan + UBSan), each run for FUZZ_SECONDS; a finding fails.
FUZZ_SECONDS ?= 25
fuzz: setup
	@cmake --preset fuzz >/dev/null && cmake --build --preset fuzz -j $(JOBS) --target perfx_fuzzers
	@bash fuzz/run_fuzzers.sh build-fuzz $(FUZZ_SECONDS)

format:
	@git ls-files '*.cpp' '*.hpp' '*.c' '*.h' | xargs clang-format -i

clean:
	rm -rf build build-release build-asan build-fuzz
