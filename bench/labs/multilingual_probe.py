"""Memories in German and Spanish among English ones, asked about in their language and in English,
with MiniLM (the default) and multilingual-e5-small (ENGRAM_EMBEDDER=multilingual); and each
model's single-query embedding latency, measured interleaved so both meet the same machine load.

    .venv/bin/python -m bench.labs.multilingual_probe

A question succeeds when its memory is among the top 3 of the 16 by cosine (bench/data/multilingual_probe.json).
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.data.locomo_data import load
from bench.rig.stats import percentile
from engram.adapters.onnx.e5_embedder import MultilingualE5Embedder
from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.domain.ports import Embedder

DATA = Path(__file__).resolve().parents[1] / "data" / "multilingual_probe.json"
TOP = 3


def probe(embedder: Embedder, data: dict[str, Any]) -> list[dict[str, Any]]:
    ids = [m["id"] for m in data["memories"]]
    memories = np.asarray(embedder.embed([m["text"] for m in data["memories"]]))
    rows = []
    for q in data["questions"]:
        scores = memories @ np.asarray(embedder.embed([q["text"]])[0])
        ranked = [ids[i] for i in np.argsort(-scores)]
        rank = ranked.index(q["memory"]) + 1
        score = float(scores[ids.index(q["memory"])])
        rows.append({"memory": q["memory"], "language": q["language"], "rank": rank, "score": round(score, 2)})
    return rows


def latency(embedders: dict[str, Embedder], queries: list[str]) -> dict[str, float]:
    samples: dict[str, list[float]] = {name: [] for name in embedders}
    for query in queries[:10]:  # warm-up
        for embedder in embedders.values():
            embedder.embed([query])
    for query in queries:
        for name, embedder in embedders.items():
            began = time.perf_counter()
            embedder.embed([query])
            samples[name].append((time.perf_counter() - began) * 1000)
    return {name: round(percentile(ms, 50), 2) for name, ms in samples.items()}


def main() -> None:
    data = json.loads(DATA.read_text())
    embedders: dict[str, Embedder] = {"MiniLM": OnnxEmbedder(), "multilingual-e5-small": MultilingualE5Embedder()}
    for name, embedder in embedders.items():
        rows = probe(embedder, data)
        found = sum(r["rank"] <= TOP for r in rows)
        print(f"{name}: {found}/{len(rows)} in the top {TOP}")
        for r in rows:
            print(f"  {r['memory']} asked in {r['language']}: rank {r['rank']}, cosine {r['score']}")
    questions = [q.question for c in load() for q in c.questions][:300]
    print("single-query embed p50 (ms), 300 LoCoMo questions:", latency(embedders, questions))


if __name__ == "__main__":
    main()
