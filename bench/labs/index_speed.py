"""Rough speed of the embedded index (not a test): median / p95 of knn and text_search.

Run: .venv/bin/python bench/labs/index_speed.py [--dims 384] [--queries 300]
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable

import numpy as np

from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.models import IndexDoc, SearchFilters

WORDS = (
    "hike trail dog cat coffee tea pizza sushi berlin paris london python rust guitar piano "
    "running swimming yoga book movie sister brother mother father allergic peanuts gluten "
    "meeting project deadline doctor dentist birthday anniversary vacation beach mountain snow "
    "garden cooking baking chess football tennis cycling marathon concert jazz rock painting"
).split()


def make_docs(n: int, dims: int, rng: np.random.Generator) -> list[IndexDoc]:
    vectors = rng.standard_normal((n, dims)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    banks = ["Personal", "Work", "Health", "Interests"]
    docs = []
    for i in range(n):
        text = "User " + " ".join(random.choices(WORDS, k=random.randint(4, 12)))
        docs.append(
            IndexDoc(
                id=f"m{i}",
                tenant_id="t",
                user_id="u",
                text=text,
                vector=vectors[i].tolist(),
                memory_bank=banks[i % len(banks)],
                metadata={"source": "chat" if i % 3 else "email"},
            )
        )
    return docs


def timed(fn: Callable[[], object], queries: int) -> tuple[float, float]:
    fn()  # warm-up
    samples = []
    for _ in range(queries):
        start = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95) - 1]


def run(n: int, dims: int, queries: int, rng: np.random.Generator) -> None:
    index = EmbeddedIndex(None, dims)
    index.upsert(make_docs(n, dims, rng))
    query = rng.standard_normal(dims).astype(np.float32).tolist()
    text = "coffee hiking with my dog in berlin"
    only_work = SearchFilters(memory_bank="Work", metadata={"source": "chat"})
    cases: dict[str, Callable[[], object]] = {
        "knn k=10": lambda: index.knn("t", "u", query, 10),
        "knn k=10 filtered": lambda: index.knn("t", "u", query, 10, only_work),
        "text_search k=10": lambda: index.text_search("t", "u", text, 10),
        "text_search k=10 filtered": lambda: index.text_search("t", "u", text, 10, only_work),
    }
    for name, fn in cases.items():
        median, p95 = timed(fn, queries)
        print(f"{n:>6} docs  {name:<26} median {median:7.3f} ms   p95 {p95:7.3f} ms")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--dims", type=int, default=384)
    parser.add_argument("--queries", type=int, default=300)
    args = parser.parse_args()
    rng = np.random.default_rng(7)
    random.seed(7)
    for n in (1_000, 10_000):
        run(n, args.dims, args.queries, rng)


if __name__ == "__main__":
    main()
