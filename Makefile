# Two entry points: `make serve` and `make test`. Both build .venv on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
# The measured versions, with hashes (README, first section): the app and its [test] extra.
LOCK   := requirements/test.lock
# uv, the installer of the lock (and the resolver of `make lock`), hashed
TOOLS  := requirements/tools.lock
UV     := uv==0.13.8

.PHONY: serve test shots browsers-and-services lint bench lock

# uv installs the lock in ~3 s where pip took ~35 s (a fresh clone, 2026-12-07; pip compiles
# every module ahead, uv leaves that to the first import). uv itself comes hashed from
# requirements/tools.lock; pip installs the lock if uv cannot.
$(STAMP): pyproject.toml $(LOCK) $(TOOLS)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes -r $(TOOLS)
	$(BIN)/uv pip install --quiet --python $(BIN)/python --require-hashes -r $(LOCK) \
	  || $(BIN)/python -m pip install --quiet --require-hashes -r $(LOCK)
	$(BIN)/uv pip install --quiet --python $(BIN)/python --no-deps -e . \
	  || $(BIN)/python -m pip install --quiet --no-deps -e .
	touch $(STAMP)

# Re-resolve the locks from pyproject.toml, keeping every pin they already have unless
# UPGRADE names what to move (UPGRADE="--upgrade-package panel", or "--upgrade"). uv runs from
# a throwaway venv; app.lock (the container's) takes test.lock's versions.
lock:
	tool=$$(mktemp -d) && $(PYTHON) -m venv $$tool \
	 && $$tool/bin/python -m pip install --quiet --require-hashes -r $(TOOLS) \
	 && $$tool/bin/uv --quiet pip compile pyproject.toml --extra test --universal --python-version 3.11 \
	    --generate-hashes --custom-compile-command "make lock" $(UPGRADE) -o $(LOCK) \
	 && $$tool/bin/uv --quiet pip compile pyproject.toml --universal --python-version 3.11 \
	    --generate-hashes --custom-compile-command "make lock" -c $(LOCK) \
	    -o requirements/app.lock \
	 && echo "$(UV)" | $$tool/bin/uv --quiet pip compile - --universal --python-version 3.11 \
	    --generate-hashes --custom-compile-command "make lock" -o $(TOOLS) \
	 && rm -rf $$tool

serve: $(STAMP)
	$(BIN)/dplab serve

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/mypy

test: $(STAMP) browsers-and-services
	$(BIN)/ruff check .
	@# mypy (one core, ~17 s without its cache) beside the tests: both must pass
	$(BIN)/mypy & typing=$$!; $(BIN)/python scripts/run-tests; tests=$$?; \
	  wait $$typing; typed=$$?; [ $$tests -eq 0 ] && [ $$typed -eq 0 ]

# `make test` with the browser tests' screenshots (test-artifacts/*.png: every page, both
# languages, phone to projector), which `make test` skips to save ~1 s of CPU each
shots: $(STAMP) browsers-and-services
	DPLAB_SHOTS=1 $(BIN)/python scripts/run-tests

# What the browser, deployment and accessibility tests need (each script installs only what
# is missing, or says why those tests are skipped)
browsers-and-services:
	@bash scripts/ensure-chromium.sh
	@bash scripts/ensure-haproxy.sh
	@bash scripts/ensure-redis.sh
	@bash scripts/ensure-axe.sh

bench: $(STAMP)
	$(BIN)/python benchmarks/gaussian_speed.py
	$(BIN)/python benchmarks/cdf_speed.py
	$(BIN)/python benchmarks/cdf_hq_bins.py
