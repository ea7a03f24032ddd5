# The two set-up commands: `make demo` and `make test`. Both install what is missing
# (Debian packages, scripts/install-deps), build in Release and run.
BUILD ?= build
JOBS ?= $(shell nproc)

.PHONY: deps build test test-fast test-sanitize fuzz demo bench clean

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

# Address and undefined-behaviour sanitizers over the fast tests, in their own build folder
# (CI runs it after `make test`). Leaks inside libassimp's error paths and COIN-OR's static registries are suppressed.
# The tests labelled mpi (mpirun -np 2) are left out: OpenMPI's runtime under ASan is not tried here (the threads
# tests cover the same jobs, results file and resume under the sanitizers).
SANITIZE_BUILD ?= build-sanitize
test-sanitize: deps
	@if [ ! -f $(SANITIZE_BUILD)/CMakeCache.txt ]; then \
	  cmake -S . -B $(SANITIZE_BUILD) $$(command -v ninja >/dev/null && echo -G Ninja) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DGRASPSIM_SANITIZE=ON -DGRASPSIM_BUILD_BENCH=OFF; fi
	cmake --build $(SANITIZE_BUILD) -j $(JOBS)
	LSAN_OPTIONS=suppressions=$(CURDIR)/.ci/lsan.supp UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
	  ctest --test-dir $(SANITIZE_BUILD) --output-on-failure -j $(JOBS) -LE 'slow|mpi'

# The libFuzzer harnesses (fuzz/), built with clang, ASan and UBSan in their own folder, each
# run for FUZZ_SECONDS from a seed corpus of the shipped files (scripts/fuzz; CI: 12 s each).
FUZZ_BUILD ?= build-fuzz
FUZZ_SECONDS ?= 60
FUZZERS = fuzz_scene fuzz_mesh fuzz_mcube fuzz_robot fuzz_state
fuzz: deps
	@if [ ! -f $(FUZZ_BUILD)/CMakeCache.txt ]; then \
	  CXX=clang++ cmake -S . -B $(FUZZ_BUILD) $$(command -v ninja >/dev/null && echo -G Ninja) -DCMAKE_BUILD_TYPE=RelWithDebInfo \
	    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO=-O1 -DGRASPSIM_FUZZ=ON -DGRASPSIM_BUILD_TESTS=OFF -DGRASPSIM_BUILD_BENCH=OFF; fi
	cmake --build $(FUZZ_BUILD) -j $(JOBS) --target $(FUZZERS)
	scripts/fuzz $(FUZZ_BUILD) $(FUZZ_SECONDS)

demo: build
	scripts/demo $(BUILD)

bench: build
	scripts/bench $(BUILD)

clean:
	rm -rf $(BUILD) $(SANITIZE_BUILD) $(FUZZ_BUILD) out
