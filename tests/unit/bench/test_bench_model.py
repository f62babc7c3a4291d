"""The bench's real model is configured by ENGRAM_QA_* alone (bench/rig/bench_model.py), never by the
product's ENGRAM_OPENAI_BASE_URL, which the offline parts' own settings read."""

from __future__ import annotations

import json
import os

import pytest

from bench.parts import memory_state, qa, reconcile_checks
from bench.rig.bench_model import BenchModel
from tests.fakes import HashEmbedder

DEAD = "http://127.0.0.1:9/v1"  # nothing listens: a part that called a model here would fail


def test_no_model_name_means_no_model() -> None:
    assert BenchModel.from_env({}) is None
    assert BenchModel.from_env({"ENGRAM_QA_MODEL": "  ", "ENGRAM_QA_BASE_URL": DEAD}) is None


def test_the_model_comes_from_the_qa_variables() -> None:
    model = BenchModel.from_env(
        {
            "ENGRAM_QA_MODEL": "qwen2.5-coder-1.5b-instruct",
            "ENGRAM_QA_BASE_URL": "http://127.0.0.1:8765/v1",
            "ENGRAM_QA_API_KEY": "a",
            "OPENAI_API_KEY": "b",
            "ENGRAM_QA_TIMEOUT": "90",
            "ENGRAM_QA_BANNED_TOKENS": "198,271",
        }
    )
    assert model == BenchModel("qwen2.5-coder-1.5b-instruct", "http://127.0.0.1:8765/v1", "a", 90.0, (198, 271))
    assert model.describe()["banned_tokens"] == "2"  # the run record says the answers were held to one line
    hosted = BenchModel.from_env({"ENGRAM_QA_MODEL": "gpt-4o-mini", "OPENAI_API_KEY": "b"})
    assert hosted is not None and hosted.api_key == "b"
    assert hosted.describe() == {"model": "gpt-4o-mini", "base_url": "https://api.openai.com/v1"}


def test_every_model_part_reads_the_same_variables() -> None:
    env = {"ENGRAM_QA_MODEL": "m", "ENGRAM_QA_BASE_URL": "http://127.0.0.1:8765/v1"}
    settings = qa.QASettings.from_env(env)
    assert settings is not None and settings.endpoint == BenchModel.from_env(env)
    assert reconcile_checks.model_configured(env)


def test_the_products_base_url_alone_configures_no_bench_model() -> None:
    env = {"ENGRAM_OPENAI_BASE_URL": DEAD}
    assert BenchModel.from_env(env) is None
    assert qa.QASettings.from_env(env) is None
    # reconcile_checks run alone still takes the product's settings, as documented
    assert reconcile_checks.model_configured(env)
    assert reconcile_checks.model_configured({"ENGRAM_LLM": "local"})
    assert not reconcile_checks.model_configured({})


def test_the_offline_memory_state_ignores_the_products_base_url(monkeypatch: pytest.MonkeyPatch) -> None:
    history = json.loads(memory_state.DATA.read_text())[0]
    embedder = HashEmbedder()
    alone = memory_state.run_history(history, "offline", embedder).figures()
    monkeypatch.setenv("ENGRAM_OPENAI_BASE_URL", DEAD)
    monkeypatch.setenv("ENGRAM_LLM_MODEL", "nothing")
    beside = memory_state.run_history(history, "offline", embedder).figures()
    assert beside == alone and beside["failed_adds"] == 0 and beside["aspects"] > 0


def test_model_mode_without_a_model_says_how_to_configure_one(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ENGRAM_QA_MODEL", raising=False)
    monkeypatch.setenv("ENGRAM_OPENAI_BASE_URL", DEAD)
    with pytest.raises(SystemExit):
        memory_state.main(["--mode", "model"])
    assert "ENGRAM_QA_MODEL" in capsys.readouterr().err


def test_an_add_the_model_fails_is_counted_not_fatal() -> None:
    """A server that cannot be reached: each session's add fails with the reason, the run goes on."""
    history = json.loads(memory_state.DATA.read_text())[0]
    llm = BenchModel("m", DEAD, timeout_s=5).llm()
    score = memory_state.run_history(history, "model", HashEmbedder(), llm)
    assert score.failed_adds == len(history["sessions"])
    assert sum("add failed" in m and "cannot reach" in m for m in score.misses) == len(history["sessions"])
    assert score.aspects == len(history["expect"])


def test_the_memory_state_screens_by_meaning_as_the_product_does() -> None:
    """An excluded bank said in passing beside a fact is kept out (the bench wires the screen by
    meaning as bootstrap does; without it, every passing mention of health leaked)."""
    from engram.adapters.onnx.embedder import OnnxEmbedder

    history = {
        "id": "t01",
        "sessions": [{"at": "2025-01-10", "messages": ["I work at Novartis, and I take insulin every morning"]}],
        "expect": {},
        "outdated": {},
        "true": ["Novartis"],
        "exclude": ["Health"],
        "excluded": ["insulin"],
    }
    score = memory_state.run_history(history, "offline", OnnxEmbedder())
    assert (score.excluded, score.leaked) == (1, 0), score.misses


def test_a_fresh_engram_keeps_the_bench_model_for_later_parts(monkeypatch: pytest.MonkeyPatch) -> None:
    """make bench's LongMemEval part builds fresh Engrams (clearing ENGRAM_* settings); the reconcile and
    qa parts after it must still find the bench's model (they were skipped when it went too)."""
    from bench.rig.engram_env import clear_product_settings

    monkeypatch.setenv("ENGRAM_QA_MODEL", "m")
    monkeypatch.setenv("ENGRAM_QA_BASE_URL", "http://127.0.0.1:1/v1")
    monkeypatch.setenv("ENGRAM_SEARCH_RERANKER", "maxsim")
    clear_product_settings()
    assert BenchModel.from_env() == BenchModel(name="m", base_url="http://127.0.0.1:1/v1")
    assert "ENGRAM_SEARCH_RERANKER" not in os.environ  # the product's own settings are still cleared
