# Thin wrapper around CMake + Ninja + CTest.
#   make demo    install deps, build, time examples/demo/ (tkc matmuls vs oneDNN)
#   make test    install deps, build, run the test suite
#   make build   install deps, configure (once) and build
#   make clean   remove the build trees
BUILD_DIR  ?= build
CMAKE      ?= cmake
CMAKE_ARGS ?=
CTEST_JOBS ?= 2
CTEST_ARGS ?=
# Parallel build jobs (empty: Ninja's default)
JOBS       ?=

JOBS_FLAG := $(if $(JOBS),-j $(JOBS),)

.PHONY: all deps configure build demo test clean

all: build

deps:
	@cmake/setup-deps.sh

# Configure only when the build tree does not exist yet; afterwards Ninja
# re-runs CMake by itself when a CMakeLists.txt or a globbed directory changes.
configure: deps
	@test -f $(BUILD_DIR)/build.ninja || \
	  $(CMAKE) -S . -B $(BUILD_DIR) -G Ninja $(CMAKE_ARGS)

build: configure
	@$(CMAKE) --build $(BUILD_DIR) $(JOBS_FLAG)

demo: build
	@BUILD_DIR=$(abspath $(BUILD_DIR)) examples/demo/run_demo.sh

test: build
	ctest --test-dir $(BUILD_DIR) --output-on-failure -j$(CTEST_JOBS) $(CTEST_ARGS)

clean:
	rm -rf $(BUILD_DIR) build-asan
