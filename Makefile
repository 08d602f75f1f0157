# Two entry points: `make serve` and `make test`. Both build .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: serve test lint bench

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

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
