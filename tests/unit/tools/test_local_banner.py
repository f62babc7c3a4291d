"""What `make run` prints at start: the embedder in use, and how to choose the multilingual one."""

from __future__ import annotations

from pathlib import Path

import pytest

from engram_tools.local.__main__ import _banner
from engram_tools.local.keys import LocalKey
from engram_tools.local.stack import Started

STARTED = Started(
    url="http://127.0.0.1:3000",
    moto_endpoint="http://127.0.0.1:5000",
    keys=[LocalKey("local", "key-1")],
    restored={},
    seconds=1.0,
    env_file=Path("/tmp/env.json"),
)


def test_the_banner_names_minilm_and_the_multilingual_option(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_EMBEDDER", "local")
    assert "embeddings: all-MiniLM-L6-v2, English (ENGRAM_EMBEDDER=multilingual" in _banner(STARTED, False)


def test_the_banner_names_the_multilingual_embedder_when_chosen(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_EMBEDDER", "multilingual")
    assert "embeddings: multilingual-e5-small (ENGRAM_EMBEDDER=multilingual)" in _banner(STARTED, False)


def test_the_banner_names_the_reranker_option_and_its_cost(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENGRAM_SEARCH_RERANKER", raising=False)
    banner = _banner(STARTED, False)
    assert "search reranker: off (ENGRAM_SEARCH_RERANKER=maxsim: " in banner
    assert "ms" in banner.split("search reranker:")[1].split("\n")[0]  # what it costs a search


def test_the_banner_says_when_the_reranker_is_on(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_SEARCH_RERANKER", "maxsim")
    assert "search reranker: MaxSim over MiniLM's token vectors, top 20" in _banner(STARTED, False)


def test_the_banner_says_there_is_no_llm_and_how_to_run_one(monkeypatch: pytest.MonkeyPatch) -> None:
    for var in ("ENGRAM_OPENAI_BASE_URL", "ENGRAM_OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    assert "LLM: none: the offline rules (ENGRAM_LLM=local for a local model" in _banner(STARTED, False)


def test_the_banner_names_the_local_model_and_its_speed() -> None:
    from engram_tools.local.llm_server import LlamaServer, Speed
    from engram_tools.local.local_model import QWEN_CODER_1_5B, LocalModel

    server = LlamaServer(Path("/data/models/q.gguf"), QWEN_CODER_1_5B.alias, port=41873, load_seconds=6.2)
    model = LocalModel(QWEN_CODER_1_5B, server, Speed(0.9, 57.0, 12.1).describe())
    line = _banner(STARTED, False, model).split("LLM: ")[1].split("\n")[0]

    assert line.startswith("Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, llama.cpp) at http://127.0.0.1:41873/v1")
    assert "loaded in 6.2 s" in line and "generation 12.1 tokens/s" in line and "~2 GB memory" in line


def test_the_banner_names_another_openai_compatible_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_OPENAI_BASE_URL", "http://localhost:11434/v1")
    monkeypatch.setenv("ENGRAM_LLM_MODEL", "qwen2.5:7b")
    assert "LLM: qwen2.5:7b at http://localhost:11434/v1 (ENGRAM_OPENAI_BASE_URL)" in _banner(STARTED, False)
