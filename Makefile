# The two quick-start commands (see README.md):
#   make demo   the main job: the pjrt-dlpack checks and the exchange demo
#   make demo-intel  the seed's exchange: JAX on Intel's oneAPI plugin and
#               Intel's dpnp share device memory, on ze_sim
#   make test   every test
#   make bench  the benchmarks (Release build in build-bench); writes
#               bench/results/results.md and latency.png
#   make soak   the library under load for SOAK_S seconds (default 600)
#   make fuzz   every libFuzzer target for PJDL_FUZZ_SECONDS (default 300) each,
#               then the Python fuzzer (atheris, fuzz/python/) as long
#   make wheel  a manylinux wheel per CPython (3.11, 3.13, 3.14) in dist/ (scripts/release.sh)
#   make sdist  the source distribution in dist/
# Each installs what it needs and is missing first (scripts/setup.sh MODE:
# SETUP_FOR below), then configures and builds.

BUILD ?= build
CMAKE_BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)

.PHONY: all setup build demo demo-intel test fuzz bench clean format wheel sdist

all: build

# What each target installs (scripts/setup.sh): make build and anything not
# named here get demo's.
SETUP_FOR ?= demo
test fuzz: SETUP_FOR = test
bench: SETUP_FOR = bench
demo-intel: SETUP_FOR = intel
wheel sdist: SETUP_FOR = release

setup:
	@bash scripts/setup.sh $(SETUP_FOR)

# Configured on every build (under a second when nothing changed): what a
# set-up installed since the last time (valgrind for make test after make
# demo) is found.
build: setup
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=$(CMAKE_BUILD_TYPE) --log-level=NOTICE
	cmake --build $(BUILD) -j $(JOBS) -- --no-print-directory

demo: build
	@bash scripts/demo.sh $(BUILD)

# Intel's plugin on ze_sim with dpctl/dpnp and JAX (scripts/demo-intel.sh);
# its set-up leaves out the modern environment (scripts/setup.sh intel).
demo-intel: build
	@bash scripts/demo-intel.sh $(BUILD)

test: build
	@bash scripts/test.sh $(BUILD)

# libFuzzer targets (clang, ASan + UBSan) in their own build directory; then
# the Python fuzzer (fuzz/python/run.sh: atheris over the pjrt_dlpack module
# and the reference plugin, scripts/setup.sh installs atheris), on a build of
# its own whose C code carries libFuzzer's coverage instrumentation and ASan
# + UBSan (build-pyfuzz). `make test` runs the Python fuzzer for 25 s on the
# main build's module.
FUZZ_BUILD ?= build-fuzz
PYFUZZ_BUILD ?= build-pyfuzz
PJDL_FUZZ_SECONDS ?= 300

fuzz: setup
	cmake -S . -B $(FUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
		-DPJDL_FUZZ=ON -DPJDL_PYTHON=OFF
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target pjdl_fuzz -- --no-print-directory
	@bash fuzz/run.sh $(FUZZ_BUILD)/fuzz $(PJDL_FUZZ_SECONDS)
	cmake -S . -B $(PYFUZZ_BUILD) -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_C_COMPILER=clang \
		-DPJDL_SANITIZE=address,undefined -DCMAKE_C_FLAGS=-fsanitize=fuzzer-no-link -DPJDL_UNITY=OFF \
		-DBUILD_TESTING=OFF
	cmake --build $(PYFUZZ_BUILD) -j $(JOBS) --target pjrt_dlpack_py pjrt_ref -- --no-print-directory
	@bash fuzz/python/run.sh $(PYFUZZ_BUILD) $(PJDL_FUZZ_SECONDS)

# Benchmarks: a Release build of its own (build-bench), every benchmark run,
# then bench/results/results.md (the table) and bench/results/latency.png.
BENCH_BUILD ?= build-bench

bench: setup
	cmake -S . -B $(BENCH_BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(BENCH_BUILD) -j $(JOBS) --target bench_all -- --no-print-directory
	@bash bench/run.sh $(BENCH_BUILD)

# The soak: the library and the Python module under load for SOAK_S seconds
# (default 600) on the reference plugin's xpu with injected faults and
# delays, XLA's CPU plugin, Intel's plugin on ze_sim, and NumPy and PyTorch
# (scripts/soak.sh; docs/reliability.md has an hour of it).
.PHONY: soak
soak: SETUP_FOR = test
soak: build
	@SOAK_S=$(SOAK_S) bash scripts/soak.sh $(BUILD)
SOAK_S ?= 600

# Every real PJRT plugin of scripts/plugins.txt (installed on demand from
# PyPI into the cache): `pjrt-dlpack info` on each, one line per plugin and
# "N passed, N failed"; fails if info crashed, hung or gave an undocumented
# exit code on any. Hardware is not needed (see docs/plugins.md).
.PHONY: plugins
plugins: build
	@bash scripts/plugins.sh info $(BUILD)

# The Python package for PyPI (scripts/release.sh): a manylinux wheel per
# CPython interpreter (3.11, 3.13 and 3.14: scripts/debian_python.py), each
# repaired and checked by auditwheel, built in $(WHEEL_BUILD)/cpXY (kept: the
# next build is incremental), and the sdist, both offline, into dist/.
WHEEL_BUILD ?= build-wheel

wheel: setup
	@bash scripts/release.sh wheel dist $(WHEEL_BUILD)

sdist: setup
	@bash scripts/release.sh sdist dist

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
	rm -rf build build-* dist
