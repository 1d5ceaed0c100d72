# The two quick-start commands (see README.md):
#   make demo   the main job: the pjrt-dlpack checks and the exchange demo
#   make test   every test
#   make bench  the benchmarks (Release build in build-bench); writes
#               bench/results/results.md and latency.png
#   make fuzz   every libFuzzer target for PJDL_FUZZ_SECONDS (default 300) each
# Each installs missing Debian packages, configures and builds first.

BUILD ?= build
CMAKE_BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)

.PHONY: all setup build demo test fuzz bench clean format

all: build

setup:
	@bash scripts/setup.sh

$(BUILD)/CMakeCache.txt: | setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE)

build: setup $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

demo: build
	@bash scripts/demo.sh $(BUILD)

test: build
	@bash scripts/test.sh $(BUILD)

# libFuzzer targets (clang, ASan + UBSan) in their own build directory.
FUZZ_BUILD ?= build-fuzz
PJDL_FUZZ_SECONDS ?= 300

fuzz: setup
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
		-DPJDL_FUZZ=ON -DPJDL_PYTHON=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target pjdl_fuzz -- --no-print-directory
	@bash fuzz/run.sh $(FUZZ_BUILD)/fuzz $(PJDL_FUZZ_SECONDS)

# Benchmarks: a Release build of its own (build-bench), every benchmark run,
# then bench/results/results.md (the table) and bench/results/latency.png.
BENCH_BUILD ?= build-bench

bench: setup
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BENCH_BUILD) -j $(JOBS) --target bench_all -- --no-print-directory
	@bash bench/run.sh $(BENCH_BUILD)

# Every real PJRT plugin of scripts/plugins.txt (installed on demand from
# PyPI into the cache): `pjrt-dlpack info` on each, one line per plugin and
# "N passed, N failed"; fails if info crashed, hung or gave an undocumented
# exit code on any. Hardware is not needed (see docs/plugins.md).
.PHONY: plugins
plugins: build
	@bash scripts/plugins.sh info $(BUILD)

# Every JAX release of scripts/jax-matrix.txt (environments installed on
# demand into the cache): the suite of tests/python/jax in each, then the
# support table of python/README.md from the same runs, in
# $(BUILD)/jax-matrix.md. Fails if any release fails.
.PHONY: jax-matrix
jax-matrix: build
	@bash scripts/jax-matrix.sh $(BUILD)

format:
	clang-format -i $$(git ls-files '*.c' '*.h' '*.cpp')

clean:
	rm -rf build build-*
