"""Derives shared/engram/adapters/onnx/e5_centre.json: the mean multilingual-e5-small vector of the
offline extractor's corpus sentences (tests/data/offline_corpus.jsonl, 591 memory-like statements
written for this project), which the multilingual embedder subtracts from every vector.

    .venv/bin/python -m bench.labs.e5_centre
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from engram.adapters.onnx.e5_embedder import CENTRE_FILE, _engine, default_model_path

SENTENCES = Path(__file__).resolve().parents[2] / "tests" / "data" / "offline_corpus.jsonl"


def main() -> None:
    texts = [json.loads(line)["text"] for line in SENTENCES.read_text().splitlines() if line.strip()]
    engine = _engine(default_model_path())
    mean = np.mean([engine.query(t) for t in texts], axis=0)
    CENTRE_FILE.write_text(json.dumps([round(float(x), 6) for x in mean]) + "\n")
    print(f"{CENTRE_FILE}: mean of {len(texts)} sentences, norm {np.linalg.norm(mean):.3f}")


if __name__ == "__main__":
    main()
