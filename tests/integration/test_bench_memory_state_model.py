"""The memory-state bench's "model" mode end to end against a real model: llama.cpp serving SmolLM2-135M
(tests/support/llama.py), through the bench's model settings (bench/rig/bench_model.py), Engram's OpenAI adapter
and the real openai client. SmolLM2's answers are poor: what is checked is that the run goes through the
model and scores one history as the other modes do, not the scores themselves. No timing is asserted."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest

from bench.parts import memory_state
from bench.rig.bench_model import BenchModel
from engram.adapters.openai.llm import OpenAILLM
from engram.domain.steps import LLMReply
from engram_tools.local.gguf_vocab import line_break_tokens
from tests.support.llama import ALIAS, smollm2_path, smollm2_server


@dataclass
class Counted:
    """The adapter, counting the calls that reached the model."""

    inner: OpenAILLM
    calls: int = 0

    def ping(self) -> None:
        self.inner.ping()

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        self.calls += 1
        return self.inner.complete_json(system, user, schema, schema_name)


@dataclass(frozen=True)
class CountedModel(BenchModel):
    seen: list[Counted] | None = None

    def llm(self) -> Any:
        counted = Counted(super().llm())
        assert self.seen is not None
        self.seen.append(counted)
        return counted


@pytest.fixture(scope="module")
def server_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with smollm2_server(tmp_path_factory.mktemp("llama")) as server:
        yield server.base_url


def test_model_mode_scores_a_history_through_the_real_model(server_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_QA_MODEL", ALIAS)
    monkeypatch.setenv("ENGRAM_QA_BASE_URL", server_url)
    monkeypatch.setenv("ENGRAM_QA_API_KEY", "local")
    monkeypatch.setenv("ENGRAM_QA_BANNED_TOKENS", ",".join(str(t) for t in line_break_tokens(smollm2_path())))
    configured = BenchModel.from_env()
    assert configured is not None
    seen: list[Counted] = []
    model = CountedModel(**vars(configured), seen=seen)
    assert model.banned_tokens  # the run's wiring: the model's JSON held to one line, as ENGRAM_LLM=local does

    result = memory_state.run(("model",), ("tune",), model, limit=1)

    assert result["model"] == {"model": ALIAS, "base_url": server_url, "banned_tokens": str(len(model.banned_tokens))}
    figures = result["model/tune"]
    assert figures["histories"] == 1 and figures["aspects"] > 0
    assert figures["failed_adds"] == 0, figures["misses"]  # every add went through the model and was stored
    assert seen and seen[0].calls >= 2  # at least one extraction per session (h01 has two)
    for name in ("state_accuracy", "fact_precision"):
        assert figures[name] is None or 0.0 <= figures[name] <= 1.0
