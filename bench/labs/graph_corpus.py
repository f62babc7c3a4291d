"""Precision and recall of the offline graph rules (no LLM) on tests/data/graph_corpus.jsonl: statements
written for the purpose, each with the (source, relation, destination) triples it states. Every third
line (0-based index % 3 == 2) is held aside: rules are written against the rest ("dev") and the held
third is scored only to report. Run: `python -m bench.labs.graph_corpus` (add `--misses` to list dev misses).

Each statement is one message, read alone, as the offline add reads it (the extractor's facts and the
sentence shapes, engram.rules.relations.offline_triples). A triple matches when its relation (snake
case) and both ends (case-folded, "user" for the speaker) are equal; precision counts every triple the
rules returned, recall every triple the corpus expects.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from engram.domain.graph import normalise_relation
from engram.domain.models import ExtractionPrompt, Message, Scope
from engram.rules.extractor import OfflineExtractor
from engram.rules.relations import offline_triples

CORPUS = Path(__file__).resolve().parents[2] / "tests" / "data" / "graph_corpus.jsonl"
Key = tuple[str, str, str]


def split_of(index: int) -> str:
    return "held" if index % 3 == 2 else "dev"


def _key(source: str, relation: str, destination: str) -> Key:
    return (" ".join(source.casefold().split()), normalise_relation(relation), " ".join(destination.casefold().split()))


def predict(statement: str) -> list[Key]:
    scope = Scope(tenant_id="bench", user_id="corpus")
    messages = [Message(role="user", content=statement)]
    facts, _ = OfflineExtractor().extract(messages, ExtractionPrompt.USER, scope)
    return list(dict.fromkeys(_key(t.source, t.relation, t.destination) for t in offline_triples(messages, facts)))


def run(corpus: Path = CORPUS, splits: tuple[str, ...] = ("dev", "held")) -> dict[str, Any]:
    totals = {s: {"statements": 0, "predicted": 0, "expected": 0, "hits": 0} for s in splits}
    misses: dict[str, list[dict[str, Any]]] = {s: [] for s in splits}
    for index, line in enumerate(corpus.read_text().splitlines()):
        split = split_of(index)
        if split not in totals:
            continue
        row = json.loads(line)
        got = set(predict(row["statement"]))
        wanted = {_key(*t) for t in row["triples"]}
        bucket = totals[split]
        bucket["statements"] += 1
        bucket["predicted"] += len(got)
        bucket["expected"] += len(wanted)
        bucket["hits"] += len(got & wanted)
        if got != wanted:
            misses[split].append(
                {"statement": row["statement"], "missed": sorted(wanted - got), "wrong": sorted(got - wanted)}
            )

    def pr(bucket: dict[str, int]) -> dict[str, Any]:
        precision = bucket["hits"] / bucket["predicted"] if bucket["predicted"] else 1.0
        recall = bucket["hits"] / bucket["expected"] if bucket["expected"] else 1.0
        return {**bucket, "precision": round(precision, 3), "recall": round(recall, 3)}

    return {"splits": {s: pr(b) for s, b in totals.items()}, "misses": misses}


if __name__ == "__main__":
    held = "--held" in sys.argv  # the held-aside third: only to report, never to write rules against
    result = run(splits=("dev", "held") if held else ("dev",))
    print(json.dumps(result["splits"], indent=2))
    if "--misses" in sys.argv:
        for miss in result["misses"]["dev"]:
            print(json.dumps(miss, ensure_ascii=False))
