"""The LLM graph path: one call per run, integer ids, malformed answers, hallucinated ids and
deletions that nothing replaces."""

from __future__ import annotations

import json
from typing import Any

from engram.domain.models import Message, Scope
from engram.graph.llm import LLMGraphExtractor
from engram.graph.service import GraphService
from tests.fakes import HashEmbedder, MemoryGraphStore, MemoryIndex, ScriptedLLM

SCOPE = Scope(tenant_id="t1", user_id="u1")


def answer(*relations: tuple[str, str, str], delete: list[Any] | None = None) -> str:
    items = [
        {"source": s, "source_type": "person", "relation": r, "destination": d, "destination_type": "thing"}
        for s, r, d in relations
    ]
    return json.dumps({"relations": items, "delete": delete or []})


def service(llm: ScriptedLLM) -> GraphService:
    store = MemoryGraphStore()
    return GraphService(store, MemoryIndex(), HashEmbedder(), LLMGraphExtractor(llm, store))


def say(graph: GraphService, text: str, task_id: str = "task") -> int:
    _, usage = graph.ingest(SCOPE, [Message(role="user", content=text)], [], task_id)
    return usage.llm_calls


def current(graph: GraphService) -> set[tuple[str, str, str]]:
    return {(r.source, r.relation, r.destination) for r in graph.relations("t1", "u1", 100, None).relations}


def test_alice_changes_jobs_with_one_call_per_run() -> None:
    llm = ScriptedLLM(
        answer(("Alice", "works at", "MIT")),
        answer(("Alice", "works_at", "Stanford"), ("Alice", "works_as", "professor"), delete=[0]),
    )
    graph = service(llm)
    assert say(graph, "Alice works at MIT") == 1
    assert say(graph, "Alice now works at Stanford as a professor", "t2") == 1
    assert current(graph) == {("Alice", "works_at", "Stanford"), ("Alice", "works_as", "professor")}
    assert "0: Alice — works_at — MIT" in llm.calls[1]["user"]
    history = graph.store.relations("t1", "u1", 100, None, include_closed=True).relations
    assert {(r.destination, r.valid_to is None) for r in history if r.relation == "works_at"} == {
        ("MIT", False),
        ("Stanford", True),
    }


def test_my_sister_is_the_users_entity() -> None:
    graph = service(ScriptedLLM(answer(("user", "sister", "Maren"), ("Maren", "lives_in", "Oslo"))))
    say(graph, "My sister Maren lives in Oslo.")
    assert current(graph) == {("u1", "sister", "Maren"), ("Maren", "lives_in", "Oslo")}


def test_hallucinated_ids_are_ignored() -> None:
    llm = ScriptedLLM(answer(("user", "likes", "sushi")), answer(("user", "likes", "pizza"), delete=[5, -1, "0"]))
    graph = service(llm)
    say(graph, "I love sushi")
    say(graph, "I love pizza")
    assert current(graph) == {("u1", "likes", "sushi"), ("u1", "likes", "pizza")}


def test_malformed_json_then_valid_is_used() -> None:
    llm = ScriptedLLM('{"relations": [{"source": "user", ', answer(("user", "lives_in", "Oslo")))
    graph = service(llm)
    assert say(graph, "I live in Oslo") == 2
    assert current(graph) == {("u1", "lives_in", "Oslo")}
    assert "could not be used" in llm.calls[1]["user"]


def test_a_deletion_nothing_replaces_is_refused() -> None:
    llm = ScriptedLLM(answer(("user", "lives_in", "Oslo")), answer(("user", "likes", "pizza"), delete=[0]))
    graph = service(llm)
    say(graph, "I live in Oslo")
    say(graph, "I love pizza")
    assert current(graph) == {("u1", "lives_in", "Oslo"), ("u1", "likes", "pizza")}


def test_a_relation_the_model_drops_is_kept() -> None:
    llm = ScriptedLLM(answer(("user", "lives_in", "Oslo"), ("user", "has_pet", "Rex")), answer())
    graph = service(llm)
    say(graph, "I live in Oslo with my dog Rex")
    say(graph, "Nice weather today")
    assert current(graph) == {("u1", "lives_in", "Oslo"), ("u1", "has_pet", "Rex")}
