"""Small numeric helpers shared by the benchmark parts (pure, unit-tested)."""

from __future__ import annotations

import math
import statistics
from collections.abc import Callable, Iterable, Sequence
from typing import TypeVar

T = TypeVar("T")


def percentile(samples: Sequence[float], q: float) -> float:
    """The q-th percentile (0-100) with linear interpolation between closest ranks."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    rank = (len(ordered) - 1) * q / 100.0
    low, high = math.floor(rank), math.ceil(rank)
    return ordered[low] + (ordered[high] - ordered[low]) * (rank - low)


def latency_summary(samples_ms: Sequence[float]) -> dict[str, float]:
    return {
        "n": len(samples_ms),
        "p50_ms": round(percentile(samples_ms, 50), 3),
        "p95_ms": round(percentile(samples_ms, 95), 3),
        "p99_ms": round(percentile(samples_ms, 99), 3),
        "mean_ms": round(statistics.fmean(samples_ms), 3),
    }


def recall_at(ranked: Sequence[str], evidence: Iterable[str], k: int) -> float:
    """Share of the evidence found in the first k results."""
    wanted = set(evidence)
    if not wanted:
        raise ValueError("no evidence")
    return len(wanted & set(ranked[:k])) / len(wanted)


def all_at(ranked: Sequence[str], evidence: Iterable[str], k: int) -> float:
    """1.0 when every piece of evidence is in the first k results, else 0.0."""
    return 1.0 if recall_at(ranked, evidence, k) == 1.0 else 0.0


def median_runs(runs: Sequence[dict[str, float]]) -> dict[str, float]:
    """Per-key median of several runs' figures (keys present in every run)."""
    if not runs:
        return {}
    keys = [k for k in runs[0] if all(k in r for r in runs)]
    return {k: statistics.median(r[k] for r in runs) for k in keys}


def ratio(engram: float | None, other: float | None) -> float | None:
    if engram is None or other is None or other == 0:
        return None
    return round(engram / other, 3)


def timed_ms(fn: Callable[[], T]) -> tuple[T, float]:
    import time

    start = time.perf_counter()
    result = fn()
    return result, (time.perf_counter() - start) * 1000.0


def distinct(ranked: Iterable[T]) -> list[T]:
    """The ranking with repeats dropped: an item ranks where it first appears (a session ranks at its
    best-ranked turn)."""
    return list(dict.fromkeys(ranked))


def dcg(relevances: Sequence[float], k: int) -> float:
    """LongMemEval's DCG (src/retrieval/eval_utils.py): rel_1 + sum_{i>=2} rel_i / log2(i)."""
    rel = list(relevances)[:k]
    return (rel[0] + sum(r / math.log2(i) for i, r in enumerate(rel[1:], start=2))) if rel else 0.0


def session_metrics(ranked: Sequence[str], gold: Iterable[str], ks: Sequence[int] = (5, 10)) -> dict[str, float]:
    """LongMemEval's session-level figures over distinct sessions: recall_any@k (some evidence session
    in the first k distinct sessions), recall_all@k (all of them), ndcg@k (binary relevance, ideal =
    every evidence session first). `ranked`: the session of each retrieved item, best first."""
    wanted = set(gold)
    if not wanted:
        raise ValueError("no evidence")
    order = distinct(ranked)
    out: dict[str, float] = {}
    for k in ks:
        top = set(order[:k])
        out[f"recall_any@{k}"] = 1.0 if wanted & top else 0.0
        out[f"recall_all@{k}"] = 1.0 if wanted <= top else 0.0
        ideal = dcg([1.0] * len(wanted), k)
        out[f"ndcg@{k}"] = dcg([1.0 if s in wanted else 0.0 for s in order], k) / ideal
    return out


def sessions_by_sum(hits: Sequence[tuple[str, float]]) -> list[str]:
    """Sessions ranked by the summed scores of their retrieved turns (a session several turns point
    to rises), ties in the order first retrieved; the variant of bench/parts/session_recall.py --sum."""
    total: dict[str, float] = {}
    for session, score in hits:
        total[session] = total.get(session, 0.0) + score
    first = {s: i for i, s in reversed(list(enumerate(s for s, _ in hits)))}
    return sorted(total, key=lambda s: (-total[s], first[s]))
