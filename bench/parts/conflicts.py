"""Conflict resolution in FactConsolidation's shape: facts told in order, later ones contradicting earlier
ones; after the whole stream, is the latest value what Engram holds, and do two-hop chains follow it?

    python -m bench.parts.conflicts                               # offline, the tuning third
    python -m bench.parts.conflicts --split held_aside            # only at the end: never tuned on
    python -m bench.parts.conflicts --show                        # each miss, for tuning
    ENGRAM_QA_MODEL=... ENGRAM_QA_BASE_URL=... python -m bench.parts.conflicts --mode model --limit 12

The set (bench/data/conflicts.json, written by bench/data/conflicts_build.py) holds groups of facts about
invented people, places and organisations; every third group is held aside. A split's facts form one
stream, replayed as MemoryAgentBench replays FactConsolidation's context: in order, in chunks (CHUNK facts a
add, one message a fact, each dated a minute after the last, each add a day after the last), into one user's
memory, through the product's ingest pipeline as the container wires it (engram.bootstrap, its stores in
memory: bench/doubles/in_memory.py), without HTTP. Then the questions, all after the last fact:
- single-hop ("Who is the CEO of Norrland Freight?", its fact edited once or twice): searched through
  MemoryService; correct when the top current memory (not marked outdated) states the latest value, and no
  current memory not marked outdated still states an older one for the subject;
- multi-hop ("What is the citizenship of the CEO of Norrland Freight?"): answered by following the user's
  current graph relations (what GET /v1/graph returns, read through the graph service) from the subject's
  entity through the two hops, a relation matching a hop when its name holds one of the hop's words (either
  direction); correct when the only answers reached are the latest one;
- unchanged (facts nothing contradicted): correct when the top current memory states the value. A resolver
  that outdates too much fails these.
Modes: offline (the rules, no LLM) and model (a real model: bench/rig/bench_model.py).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.doubles.in_memory import in_memory_product
from bench.rig.bench_model import NO_MODEL, BenchModel, model_llm
from engram.bootstrap import Container
from engram.domain.errors import EngramError
from engram.domain.graph import Relation, normalise_name, normalise_relation
from engram.domain.models import AddRequest, Fact, Message, Scope, SearchQuery
from engram.domain.ports import LLM, Embedder

DATA = Path(__file__).resolve().parents[1] / "data" / "conflicts.json"
CHUNK = 6  # facts an add: FactConsolidation feeds its context in chunks
START = datetime(2024, 1, 8, 9, tzinfo=UTC)
MODES = ("offline", "model")
SPLITS = ("tune", "held_aside")
# The field's FactConsolidation figures as issue 42 cites them (MemoryAgentBench; accuracy of the answer).
FIELD = {
    "best_published": {"single_hop": 0.54, "multi_hop": 0.07, "note": "multi-hop: the best of 22 systems"},
    "mem0": {"single_hop": 0.18, "multi_hop": 0.02},
    "zep": {"single_hop": 0.07, "note": "one figure cited, read as single-hop"},
    "newest_wins_resolver_gpt-4o-mini": {"single_hop": 0.78, "multi_hop": 0.30},
    "goal_issue_42": {"single_hop": 0.90, "multi_hop": 0.50},
}


def load() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(DATA.read_text(encoding="utf-8"))
    return data


def held_aside(group_id: str, every: int = 3) -> bool:
    """The fixed rule: every third group (g003, g006, ...)."""
    return int(group_id.lstrip("g")) % every == 0


def split_groups(data: dict[str, Any], split: str, limit: int | None = None) -> list[dict[str, Any]]:
    every = data["held_aside_every"]
    chosen = [g for g in data["groups"] if held_aside(g["id"], every) == (split == "held_aside")]
    return chosen[:limit]


def stream(groups: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The groups' facts in the order told."""
    return sorted((f for g in groups for f in g["facts"]), key=lambda f: f["order"])


def said_at(index: int) -> datetime:
    """Fact `index` of the stream: its add a day after the last, a minute after the fact before it."""
    return START + timedelta(days=index // CHUNK, minutes=index % CHUNK)


def holds(text: str, value: str) -> bool:
    return re.search(rf"(?<!\w){re.escape(value.casefold())}(?!\w)", text.casefold()) is not None


@dataclass
class Tally:
    asked: int = 0
    correct: int = 0

    def rate(self) -> float | None:
        return round(self.correct / self.asked, 3) if self.asked else None


@dataclass
class Score:
    single: Tally = field(default_factory=Tally)
    latest_first: Tally = field(default_factory=Tally)  # the single-hop's first half alone
    older_outdated: Tally = field(default_factory=Tally)  # its second half alone
    multi: Tally = field(default_factory=Tally)
    multi_reached: Tally = field(default_factory=Tally)  # the latest answer among those reached
    unchanged: Tally = field(default_factory=Tally)
    by_wording: dict[str, Tally] = field(default_factory=dict)  # single-hop, by the latest edit's wording
    by_relation: dict[str, Tally] = field(default_factory=dict)  # single-hop, by the relation edited
    failed_adds: int = 0
    misses: list[str] = field(default_factory=list)

    def figures(self) -> dict[str, Any]:
        return {
            "single_hop": self.single.rate(),
            "multi_hop": self.multi.rate(),
            "unchanged": self.unchanged.rate(),
            "single_hop_latest_first": self.latest_first.rate(),
            "single_hop_older_outdated": self.older_outdated.rate(),
            "multi_hop_latest_reached": self.multi_reached.rate(),
            "single_hop_by_wording": {k: t.rate() for k, t in sorted(self.by_wording.items())},
            "single_hop_by_relation": {k: t.rate() for k, t in sorted(self.by_relation.items())},
            "questions": {
                "single_hop": self.single.asked,
                "multi_hop": self.multi.asked,
                "unchanged": self.unchanged.asked,
            },
            "failed_adds": self.failed_adds,
        }


def replay(engram: Container, scope: Scope, facts: Sequence[dict[str, Any]], label: str) -> list[str]:
    """Feed the stream in chunks; returns the adds that failed (a real model's error after its retries)."""
    failed: list[str] = []
    for start in range(0, len(facts), CHUNK):
        chunk = facts[start : start + CHUNK]
        messages = [Message(role="user", content=f["text"], created_at=said_at(start + i)) for i, f in enumerate(chunk)]
        try:
            engram.pipeline.run(scope, AddRequest(user_id=scope.user_id, messages=messages), f"{label}-{start}")
        except EngramError as err:  # production retries, then dead-letters the add; here it is counted
            failed.append(f"add of facts {start}-{start + len(chunk) - 1} failed: {err}")
    return failed


def _current(engram: Container, scope: Scope) -> list[Fact]:
    out: list[Fact] = []
    cursor: str | None = None
    while True:
        page = engram.facts.list_current(scope.tenant_id, scope.user_id, 200, cursor)
        out += page.items
        if not (cursor := page.next_cursor):
            return out


class Graph:
    """The user's current graph, as GET /v1/graph returns it: entities and their current relations."""

    def __init__(self, engram: Container, scope: Scope) -> None:
        self.names: dict[str, set[str]] = {}
        self.relations: list[Relation] = []
        service = engram.graph
        if service is None:
            return
        cursor: str | None = None
        while True:
            page = service.entities(scope.tenant_id, scope.user_id, 200, cursor)
            self.names.update({e.id: e.names() for e in page.entities})
            if not (cursor := page.next_cursor):
                break
        while True:
            relations = service.relations(scope.tenant_id, scope.user_id, 200, cursor)
            self.relations += [r for r in relations.relations if r.current]
            if not (cursor := relations.next_cursor):
                break

    def named(self, name: str) -> set[str]:
        key = normalise_name(name)
        return {eid for eid, names in self.names.items() if key in names}

    def hop(self, ids: set[str], words: Sequence[str]) -> set[str]:
        """The other ends of the current relations at `ids` whose name holds one of `words`."""
        wanted = [normalise_relation(w) for w in words]
        out: set[str] = set()
        for r in self.relations:
            name = normalise_relation(r.relation)
            if not any(w in name for w in wanted):
                continue
            if r.source_entity_id in ids:
                out.add(r.destination_entity_id)
            if r.destination_entity_id in ids:
                out.add(r.source_entity_id)
        return out

    def reached(self, subject: str, hops: Sequence[Sequence[str]]) -> list[set[str]]:
        """The names of each entity the hops reach from the subject's."""
        ids = self.named(subject)
        for words in hops:
            ids = self.hop(ids, words)
        return [self.names.get(eid, set()) for eid in sorted(ids)]


def _wording(group: dict[str, Any], question: dict[str, Any]) -> str:
    edits = [
        f
        for f in group["facts"]
        if f["edit"] and f["subject"] == question["subject"] and f["relation"] == question["hops"][0]
    ]
    return str(max(edits, key=lambda f: f["order"])["wording"]) if edits else "none"


def score(engram: Container, scope: Scope, data: dict[str, Any], groups: Sequence[dict[str, Any]]) -> Score:
    total = Score()
    live = [f for f in _current(engram, scope) if not f.outdated_by]
    graph = Graph(engram, scope)
    words = {name: spec["words"] for name, spec in data["relations"].items()}
    for group in groups:
        for q in group["questions"]:
            where = f"{group['id']} {q['kind']}: {q['question']!r} -> {q['answer']!r}"
            if q["kind"] == "multi_hop":
                reached = graph.reached(q["subject"], [words[h] for h in q["hops"]])
                answer = normalise_name(q["answer"])
                total.multi.asked += 1
                total.multi_reached.asked += 1
                total.multi_reached.correct += any(answer in names for names in reached)
                if reached and all(answer in names for names in reached):  # the latest, and nothing else
                    total.multi.correct += 1
                else:
                    shown = sorted(min(names) for names in reached if names)
                    total.misses.append(f"{where}: graph reached {shown or 'nothing'}")
                continue
            found = engram.memories.search(scope.tenant_id, SearchQuery(user_id=scope.user_id, query=q["question"]))
            top = next((f for f, _ in found if not f.outdated_by), None)
            first = top is not None and holds(top.text, q["answer"])
            if q["kind"] == "unchanged":
                total.unchanged.asked += 1
                total.unchanged.correct += first
                if not first:
                    total.misses.append(f"{where}: top current {top.text if top else None!r}")
                continue
            stale = [
                f.text
                for f in live
                if holds(f.text, q["subject"])
                and any(holds(f.text, o) for o in q["old"])
                and not holds(f.text, q["answer"])
            ]
            wording = total.by_wording.setdefault(_wording(group, q), Tally())
            relation = total.by_relation.setdefault(q["hops"][0], Tally())
            for tally, ok in (
                (total.single, first and not stale),
                (total.latest_first, first),
                (total.older_outdated, not stale),
                (wording, first and not stale),
                (relation, first and not stale),
            ):
                tally.asked += 1
                tally.correct += ok
            if not first:
                total.misses.append(f"{where}: top current {top.text if top else None!r}")
            if stale:
                total.misses.append(f"{where}: older still current in {stale}")
    return total


def run_split(
    data: dict[str, Any], split: str, mode: str, embedder: Embedder, llm: LLM | None, limit: int | None
) -> dict[str, Any]:
    groups = split_groups(data, split, limit)
    facts = stream(groups)
    engram = in_memory_product(embedder, None if mode == "offline" else llm)
    scope = Scope(tenant_id="bench", user_id=f"conflicts-{split}")
    began = time.perf_counter()
    failed = replay(engram, scope, facts, f"{mode}-{split}")
    fed = time.perf_counter() - began
    result = score(engram, scope, data, groups)
    result.failed_adds = len(failed)
    result.misses = failed + result.misses
    return result.figures() | {
        "groups": len(groups),
        "facts": len(facts),
        "edits": sum(f["edit"] for f in facts),
        "adds": -(-len(facts) // CHUNK),
        "feed_s": round(fed, 1),
        "seconds": round(time.perf_counter() - began, 1),
        "misses": result.misses,
    }


def run(
    modes: Sequence[str] = ("offline",),
    splits: Sequence[str] = ("tune",),
    model: BenchModel | None = None,
    limit: int | None = None,
) -> dict[str, Any]:
    """`model`: the real model of mode "model"; `limit`: the first groups of each split only."""
    from engram.adapters.onnx.embedder import OnnxEmbedder

    data = load()
    groups = data["groups"]
    out: dict[str, Any] = {
        "groups": len(groups),
        "facts": sum(len(g["facts"]) for g in groups),
        "held_aside_groups": sum(held_aside(g["id"], data["held_aside_every"]) for g in groups),
        "chunk": CHUNK,
        "field_factconsolidation": FIELD,
    }
    llm = model_llm(modes, model, out)
    embedder = OnnxEmbedder()
    for mode in modes:
        for split in splits:
            out[f"{mode}/{split}"] = run_split(data, split, mode, embedder, llm, limit)
    return out


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.parts.conflicts")
    parser.add_argument("--mode", choices=MODES, default="offline")
    parser.add_argument("--split", choices=(*SPLITS, "both"), default="tune")
    parser.add_argument("--limit", type=int, help="the first N groups of each split only")
    parser.add_argument("--show", action="store_true", help="print each miss")
    args = parser.parse_args(argv)
    splits = SPLITS if args.split == "both" else (args.split,)
    model = BenchModel.from_env()
    if args.mode == "model" and model is None:
        parser.error(f"--mode model: {NO_MODEL}")
    result = run((args.mode,), splits, model, args.limit)
    for name, figures in result.items():
        if not isinstance(figures, dict) or "/" not in name:
            continue
        misses = figures.pop("misses", [])
        print(name, json.dumps(figures, ensure_ascii=False))
        if args.show:
            print("  " + "\n  ".join(misses))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
