# TileMLIR front door. `make demo` and `make test` work on a fresh Debian 12
# machine: missing packages are installed with apt-get, Python packages come
# from PyPI into .venv/.

LLVM_PREFIX  ?= /usr/lib/llvm-22
BUILD_DIR    ?= build
VENV         ?= .venv
PREFIX       ?= $(CURDIR)/install
BUILD_TYPE   ?= Release
JOBS         ?= $(shell nproc)
PYTHON_SYS   ?= /usr/bin/python3

APT_PACKAGES := llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools \
                lld-22 clang-22 libomp-22-dev rocm-device-libs \
                cmake ninja-build python3-venv
# What `make wheel` needs beyond APT_PACKAGES: lld's static libraries (kernels
# for the CPU are linked in-process) and static zlib / zstd.
WHEEL_APT_PACKAGES := liblld-22-dev zlib1g-dev libzstd-dev
WHEEL_BUILD_DIR ?= build-wheel
WHEEL_JOBS   ?= 2
DIST_DIR     ?= dist
PY           := $(CURDIR)/$(VENV)/bin/python
LIT          := $(LLVM_PREFIX)/bin/lit
# Serializes builds started at the same time (2-core machines).
LOCK         := flock /tmp/tilemlir-build.lock

.PHONY: all deps deps-wheel venv configure build test check-lit check-python demo install \
        wheel check-wheel clean

all: build

# Install the Debian packages that are missing (needs root, as in CI).
deps:
	@missing=""; for p in $(APT_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "make deps: installing$$missing"; \
	  SUDO=""; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	  $$SUDO apt-get update -q && \
	  DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q --no-install-recommends $$missing; \
	fi

$(VENV)/.stamp: python/requirements.txt | deps
	$(PYTHON_SYS) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r python/requirements.txt
	touch $@

venv: $(VENV)/.stamp

$(BUILD_DIR)/build.ninja: CMakeLists.txt | deps venv
	cmake -G Ninja -S . -B $(BUILD_DIR) \
	  -DCMAKE_BUILD_TYPE=$(BUILD_TYPE) \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DLLVM_EXTERNAL_LIT=$(LIT) \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DLLVM_USE_LINKER=lld \
	  -DPython3_EXECUTABLE=$(PY) \
	  -DCMAKE_INSTALL_PREFIX=$(PREFIX)

configure: $(BUILD_DIR)/build.ninja

build: configure
	$(LOCK) cmake --build $(BUILD_DIR) -j $(JOBS)
	@if [ -f python/pyproject.toml ]; then \
	  $(PY) -m pip install -q --no-build-isolation --no-deps -e python; fi

check-lit: build
	$(LIT) -sv $(BUILD_DIR)/test

check-python: build
	@if ls python/test/test_*.py >/dev/null 2>&1; then \
	  cd python && $(PY) -m pytest -q test; fi

# Every test that needs no GPU; non-zero exit on any failure.
test: build
	@status=0; \
	$(MAKE) --no-print-directory check-lit || status=1; \
	$(MAKE) --no-print-directory check-python || status=1; \
	exit $$status

demo: build
	@$(PY) examples/demo.py --tile-opt $(BUILD_DIR)/bin/tile-opt

install: build
	cmake --install $(BUILD_DIR) --prefix $(PREFIX)

deps-wheel: deps
	@$(MAKE) --no-print-directory deps APT_PACKAGES="$(WHEEL_APT_PACKAGES)"

# The wheel (dist/tilemlir-*-py3-none-manylinux_2_NN_x86_64.whl): the Python
# package with a compiler library linked statically against LLVM/MLIR, built
# in a directory of its own ($(WHEEL_BUILD_DIR)); see docs/wheel.md.
$(WHEEL_BUILD_DIR)/build.ninja: CMakeLists.txt | deps-wheel venv
	cmake -G Ninja -S . -B $(WHEEL_BUILD_DIR) -DTILE_WHEEL=ON \
	  -DCMAKE_BUILD_TYPE=Release \
	  -DMLIR_DIR=$(LLVM_PREFIX)/lib/cmake/mlir \
	  -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
	  -DLLVM_USE_LINKER=lld \
	  -DPython3_EXECUTABLE=$(PY)

wheel: $(WHEEL_BUILD_DIR)/build.ninja
	$(LOCK) cmake --build $(WHEEL_BUILD_DIR) -j $(WHEEL_JOBS) --target TileMLIRCAPI
	rm -rf $(WHEEL_BUILD_DIR)/py $(DIST_DIR)/tilemlir-*.whl
	mkdir -p $(WHEEL_BUILD_DIR)/py
	cd python && TILEMLIR_LIB_DIR=$(abspath $(WHEEL_BUILD_DIR))/lib $(PY) setup.py -q \
	  egg_info --egg-base $(abspath $(WHEEL_BUILD_DIR))/py \
	  build --build-base $(abspath $(WHEEL_BUILD_DIR))/py/build \
	  bdist_wheel --bdist-dir $(abspath $(WHEEL_BUILD_DIR))/py/bdist \
	  --dist-dir $(abspath $(DIST_DIR))
	@ls -l $(DIST_DIR)/tilemlir-*.whl

# The wheel installed into a fresh virtual environment and run from outside
# the checkout (python/test/check_wheel.py).
check-wheel: wheel
	$(PY) python/test/check_wheel.py $(DIST_DIR)/tilemlir-*.whl

clean:
	rm -rf $(BUILD_DIR)
