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
