# Thin wrapper over CMake. `make example` and `make test` work on a fresh
# Debian 12 machine: they install what is missing, configure and build.
BUILD ?= build
JOBS ?= $(shell nproc)
CMAKE_FLAGS ?=

.PHONY: all deps configure build example test bench wheel clean

all: build

# Debian's packages, then the Python environment of the importer (PyTorch
# 2.x from PyPI, outside the clone: scripts/python-env.sh).
deps:
	./scripts/install-deps.sh
	./scripts/python-env.sh >/dev/null

$(BUILD)/build.ninja:
	cmake -S . -B $(BUILD) -G Ninja $(CMAKE_FLAGS)

configure: deps $(BUILD)/build.ninja

build: configure
	ninja -C $(BUILD) -j $(JOBS)

example: build
	./scripts/run-example.sh $(BUILD)

test: configure
	ninja -C $(BUILD) -j $(JOBS) check-remat

bench: configure
	ninja -C $(BUILD) -j $(JOBS) remat-benchmarks

# dist/remat-*.whl: remat_torch, the importer and remat-opt with its shared
# libraries (scripts/build-wheel.py); `pip install dist/remat-*.whl`.
wheel: build
	$$(./scripts/python-env.sh --path) scripts/build-wheel.py $(BUILD) dist

clean:
	rm -rf $(BUILD)
