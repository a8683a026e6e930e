# BrikForge: `make run` serves on http://127.0.0.1:8000 (SQLite), `make test` runs everything,
# `make quick` the fast part while you work.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV   := .venv
BIN    := $(VENV)/bin
MYPY_CACHE ?= .mypy_cache
HOST   ?= 127.0.0.1
PORT   ?= 8000

.PHONY: run test quick suite lint typecheck format migrate bench compare load baseline clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e .
	@touch $@

$(VENV)/.dev-installed: pyproject.toml | $(BIN)/python
	$(BIN)/pip install --quiet -e '.[dev]'
	@touch $@ $(VENV)/.installed

migrate: $(VENV)/.installed
	$(BIN)/alembic upgrade head

run: migrate
	$(BIN)/uvicorn app.main:create_app --factory --host $(HOST) --port $(PORT) --no-proxy-headers

test: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check app tests migrations bench
	$(MAKE) --no-print-directory typecheck
	$(MAKE) --no-print-directory suite

# The tests alone (CI's second database pass: the checks above are the same on both).
suite: $(VENV)/.dev-installed
	$(BIN)/python -m pytest

# The loop while you work: ruff and the tests not marked `slow` (Monte Carlo, brute-force
# enumeration, the schemathesis fuzz, live servers) nor `browser` (they need Chromium and
# start a server and a browser: run them when you change a page). No mypy. `make test`
# runs everything, as CI does.
quick: $(VENV)/.dev-installed
	$(BIN)/ruff check .
	$(BIN)/ruff format --check app tests migrations bench
	$(BIN)/python -m pytest -m "not slow and not browser"

# Speed targets: writes bench/results.md (exit 1 if a target is missed).
bench: $(VENV)/.dev-installed
	$(BIN)/python -m bench

# make bench on an older commit (OLD=<rev>) and on this code in alternating pairs, each row's
# median new/old ratio (above 1.10: a regression); writes bench/compare.md.
OLD ?= HEAD~1
PAIRS ?= 5
compare: $(VENV)/.dev-installed
	$(BIN)/python -m bench.compare --old $(OLD) --pairs $(PAIRS) $(SUITES)

# Production-shaped load (PostgreSQL on 127.0.0.1, 4 workers, a seeded throw-away database,
# short bounded phases): the "## Load" section of bench/results.md. Not part of `make test`.
# LOAD_ARGS="--phases abuse,yardstick": issue 30's attacks beside normal pages (own section);
# LOAD_ARGS="--phases army,live,yardstick [--live-battles 100]": issue 31's live streams (own
# section);
# LOAD_ARGS="--compare-old main": the mix at a fixed rate on main's code and this tree's.
load: $(VENV)/.dev-installed
	$(BIN)/python -m bench.load $(LOAD_ARGS)

# Issue 15's wrk figure on the code it was measured on and on this code, side by side (needs
# git and wrk): the "## Load against the issue's baseline" section of bench/results.md.
baseline: $(VENV)/.dev-installed
	$(BIN)/python -m bench.baseline $(BASELINE_ARGS)

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check .

# The engine strictly; the rest of the app with mypy's defaults (two caches: the flags differ).
typecheck: $(VENV)/.dev-installed
	$(BIN)/mypy --strict --cache-dir $(MYPY_CACHE) app tests/rules/conformance/fake_ruleset.py

format: $(VENV)/.dev-installed
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format app tests migrations

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .mypy_cache tests/artifacts
