# Two entry points: `make serve` and `make test`. Both build .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The measured versions, with hashes (README, first section): the app and its [test] extra.
LOCK   := requirements/test.lock
UV     := uv==0.13.8

.PHONY: serve test lint bench lock

$(STAMP): pyproject.toml $(LOCK)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# Re-resolve the locks from pyproject.toml, keeping every pin they already have unless
# UPGRADE names what to move (UPGRADE="--upgrade-package panel", or "--upgrade"). uv runs from
# a throwaway venv; app.lock (the container's) takes test.lock's versions.
lock:
	tool=$$(mktemp -d) && $(PYTHON) -m venv $$tool \
	 && $$tool/bin/python -m pip install --quiet $(UV) \
	 && $$tool/bin/uv --quiet pip compile pyproject.toml --extra test --universal --python-version 3.11 \
	    --generate-hashes --custom-compile-command "make lock" $(UPGRADE) -o $(LOCK) \
	 && $$tool/bin/uv --quiet pip compile pyproject.toml --universal --python-version 3.11 \
	    --generate-hashes --custom-compile-command "make lock" -c $(LOCK) \
	    -o requirements/app.lock \
	 && rm -rf $$tool

serve: $(STAMP)
	$(BIN)/dplab serve

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

test: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy
	@bash scripts/ensure-chromium.sh
	@bash scripts/ensure-haproxy.sh
	@bash scripts/ensure-redis.sh
	@bash scripts/ensure-axe.sh
	$(BIN)/python scripts/run-tests

bench: $(STAMP)
	$(BIN)/python benchmarks/gaussian_speed.py
	$(BIN)/python benchmarks/cdf_speed.py
	$(BIN)/python benchmarks/cdf_hq_bins.py
