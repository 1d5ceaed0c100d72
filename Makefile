# The two quick-start commands (see README.md):
#   make demo   the main job: the pjrt-dlpack checks and the exchange demo
#   make test   every test
# Both install missing Debian packages, configure and build first.

BUILD ?= build
CMAKE_BUILD_TYPE ?= RelWithDebInfo
JOBS ?= $(shell nproc)

.PHONY: all setup build demo test clean format

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

format:
	clang-format -i $$(git ls-files '*.c' '*.h')

clean:
	rm -rf build build-*
