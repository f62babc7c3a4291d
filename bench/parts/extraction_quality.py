"""Part `extract`: precision and recall of the offline extractor on tests/data/offline_corpus.jsonl
(built by bench/data/extraction_corpus.py), on the held-aside third and on the rest.

A predicted fact matches an expected one when their keys compare equal (offline.keys.signature)
and their values agree (preferences: same polarity, love/like vs hate/dislike). Precision counts
every fact the extractor returned; recall every fact the corpus expects.
"""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from engram.domain.models import ExtractionPrompt, Message, Scope
from engram.rules.extractor import OfflineExtractor
from engram.rules.keys import family_of, same_value, signature

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "offline_corpus.jsonl"
SAID_AT = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # relative dates resolve against this
_POSITIVE = frozenset({"love", "like"})


def _agrees(key: str, got: str | None, wanted: str) -> bool:
    if family_of(key) == "preference":
        return got is not None and (got in _POSITIVE) == (wanted in _POSITIVE)
    return same_value(got, wanted)


def matched(predicted: list[tuple[str, str | None]], expected: list[tuple[str, str]]) -> int:
    """How many expected facts some predicted fact matches (each predicted fact used once)."""
    free = list(predicted)
    hits = 0
    for key, value in expected:
        found = next((p for p in free if signature(p[0]) == signature(key) and _agrees(key, p[1], value)), None)
        if found is not None:
            free.remove(found)
            hits += 1
    return hits


def run(corpus: Path = CORPUS) -> dict[str, Any]:
    extractor = OfflineExtractor(clock=lambda: SAID_AT)
    scope = Scope(tenant_id="bench", user_id="corpus")
    totals: dict[str, dict[str, int]] = defaultdict(lambda: {"statements": 0, "predicted": 0, "expected": 0, "hits": 0})
    by_class: dict[str, dict[str, int]] = defaultdict(lambda: {"predicted": 0, "expected": 0, "hits": 0})
    misses: list[dict[str, Any]] = []
    for line in corpus.read_text().splitlines():
        row = json.loads(line)
        facts, _ = extractor.extract([Message(role="user", content=row["text"])], ExtractionPrompt.USER, scope)
        predicted = [(f.fact_key or "", f.fact_value) for f in facts]
        expected = [(k, v) for k, v in row["facts"]]
        hits = matched(predicted, expected)
        for bucket in (totals[row["split"]], by_class[f"{row['split']}:{row['class']}"]):
            bucket["predicted"] += len(predicted)
            bucket["expected"] += len(expected)
            bucket["hits"] += hits
        totals[row["split"]]["statements"] += 1
        if row["split"] == "held" and (hits < len(expected) or hits < len(predicted)):
            misses.append({"text": row["text"], "expected": expected, "got": [[f.text, f.fact_key] for f in facts]})

    def pr(bucket: dict[str, int]) -> dict[str, Any]:
        precision = bucket["hits"] / bucket["predicted"] if bucket["predicted"] else 1.0
        recall = bucket["hits"] / bucket["expected"] if bucket["expected"] else 1.0
        return {**bucket, "precision": round(precision, 3), "recall": round(recall, 3)}

    return {
        "corpus": str(corpus.relative_to(corpus.parents[2])),
        "splits": {split: pr(bucket) for split, bucket in sorted(totals.items())},
        "held_by_class": {
            name.split(":", 1)[1]: pr(b) for name, b in sorted(by_class.items()) if name.startswith("held:")
        },
        "held_misses": misses,
    }
