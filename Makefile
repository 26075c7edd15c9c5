# The README's quick start: `make demo` and `make test`. Both install what is missing first.
BUILD ?= build
JOBS ?= $(shell nproc)
WERROR ?= OFF
CMAKE_FLAGS ?=

.PHONY: demo test build python-build deps format clean

deps:
	@./scripts/install-deps

$(BUILD)/CMakeCache.txt: | deps
	cmake -S . -B $(BUILD) -DCMAKE_BUILD_TYPE=Release -DGPUFEC_WERROR=$(WERROR) $(CMAKE_FLAGS)

build: deps $(BUILD)/CMakeCache.txt
	cmake --build $(BUILD) -j $(JOBS)

# The Python package's tests run in a virtual environment of the build (nanobind and pytest from
# PyPI, python/requirements-test.txt); the build then makes the module and ctest runs pytest.
VENV := $(BUILD)/venv
$(VENV)/.installed: python/requirements-test.txt
	python3 -m venv $(VENV)
	$(VENV)/bin/python -m pip install --quiet --disable-pip-version-check -r $<
	touch $@

python-build: deps $(VENV)/.installed $(BUILD)/CMakeCache.txt
	cmake -S . -B $(BUILD) -DGPUFEC_PYTHON=ON -DPython_EXECUTABLE=$(abspath $(VENV))/bin/python
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

test: python-build
	ctest --test-dir $(BUILD) --output-on-failure -j $(JOBS)

format:
	find include src tools tests bench python/src -name '*.hpp' -o -name '*.cpp' -o -name '*.cu' -o -name '*.cuh' \
	  | xargs clang-format -i

clean:
	rm -rf $(BUILD) $(BUILD)-cpu
