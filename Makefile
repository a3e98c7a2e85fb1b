# Two entry points do all set-up on a fresh machine:
#   make demo   synthetic calcium movie, then the offline analysis (no API key needed)
#   make test   the whole test suite
PYTHON ?= python3
VENV ?= .venv
BIN = $(VENV)/bin
STAMP = $(VENV)/.installed

.PHONY: install demo test lint bench clean

$(STAMP): setup.cfg pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# The CPU build of PyTorch, pinned: an unpinned torch would pull a multi-GB CUDA build.
	$(BIN)/python -m pip install --quiet torch==2.13.0
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

demo: $(STAMP)
	$(BIN)/planexec demo-data data/demo
	HF_HUB_OFFLINE=1 $(BIN)/planexec run "Count the cells in the images" --images data/demo

test: $(STAMP)
	HF_HUB_OFFLINE=1 $(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check .

bench: $(STAMP)
	for b in benchmarks/bench_*.py; do echo "== $$b"; HF_HUB_OFFLINE=1 $(BIN)/python $$b --quick || exit 1; done

clean:
	rm -rf $(VENV) build *.egg-info outputs
