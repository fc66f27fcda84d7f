# The two commands of the README: `make ask Q="..."` and `make test`. Both set themselves up.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
Q      ?= Chống chỉ định của amoxicilin là gì?

.PHONY: ask test lint typecheck pytest ingest layer-requirements clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; sys.exit(0 if sys.version_info >= (3, 11) else "Python 3.11+ is required")'
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --disable-pip-version-check -e '.[test]'
	@touch $@

ask: $(STAMP)
	@$(BIN)/duocthu ingest --if-missing
	@$(BIN)/duocthu ask "$(Q)"

ingest: $(STAMP)
	$(BIN)/duocthu ingest

test: lint typecheck pytest

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy shared/duocthu

pytest: $(STAMP)
	$(BIN)/pytest

# shared/requirements.txt (what the layer build installs) is generated from pyproject's pins.
layer-requirements: $(STAMP)
	$(BIN)/python infra/layer_requirements.py > shared/requirements.txt

clean:
	rm -rf $(VENV) .duocthu .mypy_cache .pytest_cache .ruff_cache .aws-sam
