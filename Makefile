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

# A short, meaningful simulation on the GPU when one is present, else on the CPU.
demo: build
	./scripts/demo $(BUILD)/gpufec

test: build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

format:
	find include src tools tests bench -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \
	  | xargs clang-format -i

clean:
	rm -rf $(BUILD)
