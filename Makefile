# The two set-up commands: `make demo` and `make test`. Both install what is missing
# (Debian packages, scripts/install-deps), build in Release and run.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: deps build test test-fast demo bench clean

deps:
	scripts/install-deps

build: deps
	@if [ ! -f $(BUILD)/CMakeCache.txt ]; then \
	  cmake -S . -B $(BUILD) $$(command -v ninja >/dev/null && echo -G Ninja) -DCMAKE_BUILD_TYPE=Release; fi
	cmake --build $(BUILD) -j $(JOBS)

# Everything, including the slow validation runs (as CI does).
test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

# Skips tests labelled "slow".
test-fast: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS) -LE slow

demo: build
	scripts/demo $(BUILD)

bench: build
	scripts/bench $(BUILD)

clean:
	rm -rf $(BUILD) out
