"""Graph memory measures: `python -m bench.labs.graph_lab [--relations N] [--turns N]`.

- latency: the relations ranking of a search over N relations of one user (embedded entity index,
  in-memory adjacency), the query embedding excluded (already paid by the memory search);
- calls: graph LLM calls per extraction run, replaying LoCoMo turns (one run per turn) with the stub LLM;
- pr: precision/recall of the offline relations on tests/data/graph_statements.json.
Results go to bench/results/graph.json.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.doubles import stub_llm
from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.graph import Entity, Relation
from engram.domain.models import Message, Scope, Usage
from engram.domain.steps import LLMReply
from engram.graph.llm import LLMGraphExtractor
from engram.graph.resolve import entity_doc
from engram.graph.search import GraphSearcher
from engram.graph.service import GraphService
from engram.rules.extractor import OfflineExtractor
from engram.rules.relations import offline_triples
from tests.fakes import HashEmbedder, MemoryGraphStore

ROOT = Path(__file__).resolve().parents[2]
STATEMENTS = ROOT / "tests" / "data" / "graph_statements.json"
DIMS = 384


class InProcessStub:
    """The bench stub LLM, called in process (same answers as its HTTP server gives)."""

    def complete_json(self, system: str, user: str, schema: dict[str, Any], schema_name: str) -> LLMReply:
        request = {
            "messages": [{"role": "system", "content": system}, {"role": "user", "content": user}],
            "response_format": {"json_schema": {"schema": schema}},
        }
        return LLMReply(content=stub_llm.respond(request), usage=Usage(llm_calls=1))


class AdjacencyStore(MemoryGraphStore):
    """The in-memory store with the adjacency the DynamoDB key design gives (relations by entity)."""

    def __init__(self) -> None:
        super().__init__()
        self.by_entity: dict[str, list[Relation]] = {}

    def put_relations(self, relations: Sequence[Relation]) -> None:
        super().put_relations(relations)
        for r in relations:
            for end in (r.source_entity_id, r.destination_entity_id):
                self.by_entity.setdefault(end, []).append(r)

    def relations_of(self, tenant_id: str, entity_ids: Sequence[str], include_closed: bool = False) -> list[Relation]:
        found = {r.id: r for e in entity_ids for r in self.by_entity.get(e, []) if include_closed or r.current}
        return list(found.values())


def _name(i: int) -> str:
    """Distinct made-up names (real users' entities rarely share a word)."""
    syllables = ["ka", "lo", "mi", "ren", "to", "sa", "vi", "dan", "el", "or", "us", "ne"]
    return "".join(syllables[(i // 12**k) % 12] for k in range(4)).capitalize()


def _unit(rng: random.Random) -> list[float]:
    v = [rng.gauss(0, 1) for _ in range(DIMS)]
    n = sum(x * x for x in v) ** 0.5
    return [x / n for x in v]


def latency(relations: int, queries: int = 200) -> dict[str, Any]:
    rng = random.Random(7)
    store, index = AdjacencyStore(), EmbeddedIndex(None, DIMS)
    entities = [Entity(tenant_id="t", user_id="u", name=_name(i), type="person") for i in range(relations // 2)]
    vectors = [_unit(rng) for _ in entities]
    store.put_entities(entities)
    index.upsert([entity_doc(e, v) for e, v in zip(entities, vectors, strict=True)])
    rels = []
    for _ in range(relations):
        a, b = rng.sample(entities, 2)
        rels.append(
            Relation(
                tenant_id="t",
                user_id="u",
                source_entity_id=a.id,
                relation="knows",
                destination_entity_id=b.id,
                source=a.name,
                destination=b.name,
            )
        )
    store.put_relations(rels)
    searcher = GraphSearcher(store, index)
    times = []
    for _ in range(queries):
        target = rng.randrange(len(entities))
        started = time.perf_counter()
        searcher.search("t", "u", f"Who is {entities[target].name}?", vectors[target])
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return {
        "relations": relations,
        "entities": len(entities),
        "queries": queries,
        "p50_ms": round(statistics.median(times), 3),
        "p95_ms": round(times[int(0.95 * len(times))], 3),
    }


def calls(turns: int) -> dict[str, Any]:
    try:
        from bench.data.locomo_data import load

        texts = [t.text for c in load() for t in c.turns][:turns]
        source = "LoCoMo"
    except FileNotFoundError:
        texts = [s["text"] for s in json.loads(STATEMENTS.read_text())][:turns]
        source = "graph_statements.json (LoCoMo not found)"
    store = MemoryGraphStore()
    graph = GraphService(
        store, EmbeddedIndex(None, HashEmbedder.dimensions), HashEmbedder(), LLMGraphExtractor(InProcessStub(), store)
    )
    total = 0
    scope = Scope(tenant_id="t", user_id="u")
    for i, text in enumerate(texts):
        _, usage = graph.ingest(scope, [Message(role="user", content=text)], [], f"task-{i}")
        total += usage.llm_calls
    return {
        "source": source,
        "runs": len(texts),
        "graph_llm_calls": total,
        "calls_per_run": round(total / max(1, len(texts)), 3),
    }


def precision_recall() -> dict[str, Any]:
    extractor, scope = OfflineExtractor(), Scope(tenant_id="t", user_id="u")
    tp = predicted = expected = 0
    for item in json.loads(STATEMENTS.read_text()):
        messages = [Message(role="user", content=item["text"])]
        facts, _ = extractor.extract(messages, "user", scope)  # type: ignore[arg-type]
        got = {
            (t.source.casefold(), t.relation, t.destination.casefold())
            for t in offline_triples(messages, facts)
            if not t.negated
        }
        want = {(s.casefold(), r, d.casefold()) for s, r, d in item["triples"]}
        tp += len(got & want)
        predicted += len(got)
        expected += len(want)
    return {
        "statements": len(json.loads(STATEMENTS.read_text())),
        "expected_triples": expected,
        "predicted_triples": predicted,
        "precision": round(tp / max(1, predicted), 3),
        "recall": round(tp / max(1, expected), 3),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.labs.graph_lab")
    parser.add_argument("--relations", type=int, default=10_000)
    parser.add_argument("--turns", type=int, default=300)
    args = parser.parse_args(argv)
    result = {"latency": latency(args.relations), "calls": calls(args.turns), "pr": precision_recall()}
    out = ROOT / "bench" / "results" / "graph.json"
    out.write_text(json.dumps(result, indent=2) + "\n")
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
