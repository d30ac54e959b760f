# xla-server: the two commands are `make run` and `make test`.
BUILD_DIR ?= build
FUZZ_DIR ?= build-fuzz
JOBS ?= $(shell nproc)
PORT ?= 50051
FUZZ_SECONDS ?= 45
FUZZ_COMPILE_SECONDS ?= 600
CMAKE_FLAGS ?=

.PHONY: all deps configure build test unit-test fuzz fuzz-compile bazel-build run bench clean

all: build

deps:
	@sh scripts/deps.sh

configure:
	@cmake -S . -B $(BUILD_DIR) -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo $(CMAKE_FLAGS) >/dev/null

build: configure
	@cmake --build $(BUILD_DIR) -j $(JOBS)

unit-test: build
	@cd $(BUILD_DIR) && ctest --output-on-failure -j $(JOBS)

fuzz:
	@sh scripts/fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

# Compiles and runs fuzzed modules on the interpreter and cpu (ASan build of the backend).
fuzz-compile: deps
	@XLA_FUZZ_COMPILE_SECONDS=$(FUZZ_COMPILE_SECONDS) sh scripts/fuzz.sh $(FUZZ_DIR) $(FUZZ_SECONDS)

bazel-build:
	@sh scripts/bazel_build.sh

test: deps
	@$(MAKE) --no-print-directory unit-test
	@$(MAKE) --no-print-directory fuzz
	@$(MAKE) --no-print-directory bazel-build

run: deps build
	@$(BUILD_DIR)/bin/xla-server --listen=127.0.0.1:$(PORT)

bench: deps build
	@sh scripts/bench.sh $(BUILD_DIR)

clean:
	rm -rf $(BUILD_DIR) $(FUZZ_DIR) bazel-*
