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

asan: setup
	@cmake --preset asan >/dev/null && cmake --build --preset asan -j $(JOBS)
	@cd build-asan && ctest --output-on-failure -j $(JOBS) --timeout 900

format:
	@git ls-files '*.cpp' '*.hpp' '*.c' '*.h' | xargs clang-format -i

clean:
	rm -rf build build-release build-asan build-fuzz
