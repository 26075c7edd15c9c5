# The README's quick start: `make demo` and `make test`. Both install what is missing first.
BUILD ?= build
JOBS ?= $(shell nproc)
WERROR ?= OFF
CMAKE_FLAGS ?=

.PHONY: demo test build deps format clean

deps:
	@./scripts/install-deps

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGPUFEC_WERROR=$(WERROR) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# A short, meaningful simulation on the GPU when one is present, else on the CPU. The demo needs
# the CLI alone (no test, no benchmark program), and CUDA only where a GPU can run it: without one
# it builds in $(BUILD)-cpu with CUDA off, a few minutes on 2 cores.
HAS_GPU := $(shell nvidia-smi -L >/dev/null 2>&1 && echo yes)
DEMO_BUILD := $(if $(HAS_GPU),$(BUILD),$(BUILD)-cpu)

$(BUILD)-cpu/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD)-cpu -DCMAKE_BUILD_TYPE=Release -DGPUFEC_WERROR=$(WERROR) \
	  -DGPUFEC_CUDA=OFF $(CMAKE_FLAGS)

demo: deps $(DEMO_BUILD)/CMakeCache.txt
	cmake --build $(DEMO_BUILD) -j $(JOBS) --target gpufec_cli
	./scripts/demo $(DEMO_BUILD)/gpufec

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

format:
	find include src tools tests bench -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \
	  | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(BUILD)-cpu
