# The two commands of the README: `make ask Q="..."` and `make test`. Both set themselves up.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
Q      ?= Chống chỉ định của amoxicilin là gì?

.PHONY: ask test lint typecheck pytest validate ingest layer-requirements build clean

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

test: lint typecheck validate pytest

lint: $(STAMP)
	$(BIN)/ruff check .

typecheck: $(STAMP)
	$(BIN)/mypy shared/duocthu

pytest: $(STAMP)
	$(BIN)/pytest

# Infrastructure tools pin their own boto3/click/pydantic: each lives in its own virtualenv
# under .tools/ (created on demand) and runs as a subprocess, never inside .venv.
TOOLS   := .tools
SAM     := $(TOOLS)/sam/bin/sam
SAM_ENV := AWS_DEFAULT_REGION=ap-southeast-1 SAM_CLI_TELEMETRY=0

$(SAM):
	$(PYTHON) -m venv $(TOOLS)/sam
	$(TOOLS)/sam/bin/python -m pip install -q --disable-pip-version-check aws-sam-cli==1.170.0

validate: $(SAM)
	$(SAM_ENV) $(SAM) validate --lint

build: $(SAM)
	$(SAM_ENV) $(SAM) build

# shared/requirements.txt (what the layer build installs) is generated from pyproject's pins.
layer-requirements: $(STAMP)
	$(BIN)/python infra/layer_requirements.py > shared/requirements.txt

clean:
	rm -rf $(VENV) .duocthu .mypy_cache .pytest_cache .ruff_cache .aws-sam
