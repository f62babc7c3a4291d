"""Late interaction on the packaged MiniLM: the memory that answers a question scores above an
unrelated one, scores stay in [0, 1], and a memory's token vectors are read once."""

from __future__ import annotations

import numpy as np
import pytest

from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.adapters.onnx.maxsim_reranker import MaxSimReranker, from_settings
from engram.settings import Settings


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()


class Counting:
    def __init__(self, model: OnnxEmbedder) -> None:
        self.model = model
        self.model_id = model.model_id
        self.read: list[str] = []

    def token_vectors(self, text: str) -> np.typing.NDArray[np.float32]:
        self.read.append(text)
        return self.model.token_vectors(text)


def test_the_answering_memory_scores_above_an_unrelated_one(embedder: OnnxEmbedder) -> None:
    reranker = MaxSimReranker(embedder)
    answer = "Caroline: I started taking guitar lessons last month, my teacher is great"
    unrelated = "Melanie: We went camping by the lake and the kids loved the campfire"
    scores = reranker.score("When did Caroline start guitar lessons?", [unrelated, answer])
    assert scores[1] > scores[0]
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert reranker.model_id == "maxsim-all-MiniLM-L6-v2-onnx-int8"


def test_token_vectors_are_unit_length_one_per_token(embedder: OnnxEmbedder) -> None:
    vectors = embedder.token_vectors("I live in Berlin")
    assert vectors.shape == (4, 384)  # i, live, in, berlin: no [CLS] or [SEP]
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_a_memory_seen_before_is_not_run_through_the_model_again(embedder: OnnxEmbedder) -> None:
    model = Counting(embedder)
    reranker = MaxSimReranker(model, cache_texts=2)
    first = reranker.score("pizza?", ["Loves pizza", "Lives in Berlin"])
    second = reranker.score("pizza?", ["Loves pizza", "Lives in Berlin"])
    assert first == second
    assert model.read == ["pizza?", "Loves pizza", "Lives in Berlin", "pizza?"]
    reranker.score("x", ["a", "b", "Loves pizza"])  # the table holds two texts: pizza was dropped
    assert model.read[-1] == "Loves pizza"


def test_no_texts_no_model_run() -> None:
    assert MaxSimReranker(Counting(OnnxEmbedder())).score("q", []) == []


def test_the_setting_turns_it_on() -> None:
    assert from_settings(Settings(search_reranker="off")) is None
    assert isinstance(from_settings(Settings(search_reranker="maxsim")), MaxSimReranker)
