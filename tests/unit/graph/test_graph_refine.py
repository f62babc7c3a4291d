"""Refine: a relation whose kind or end changed becomes a new version linked to the closed old one
(`refined_from`), offline (a single-valued relation's new destination, likes turned dislikes) and when
the LLM's answer says "refine"."""

from __future__ import annotations

import json
from typing import Any

from engram.domain.graph import Relation
from engram.domain.models import Message, Scope
from engram.graph.apply import GraphChanges
from engram.graph.llm import LLMGraphExtractor
from engram.graph.service import GraphService
from engram.rules.extractor import OfflineExtractor
from tests.fakes import HashEmbedder, MemoryGraphStore, MemoryIndex, ScriptedLLM

SCOPE = Scope(tenant_id="t1", user_id="u1")


def say(graph: GraphService, text: str, task_id: str = "task") -> GraphChanges:
    messages = [Message(role="user", content=text)]
    facts: Any = []
    if graph.extractor is None:
        facts, _ = OfflineExtractor().extract(messages, "user", SCOPE)  # type: ignore[arg-type]
    changes, _ = graph.ingest(SCOPE, messages, facts, task_id)
    return changes


def history(graph: GraphService) -> list[Relation]:
    return graph.store.relations("t1", "u1", 100, None, include_closed=True).relations


def offline() -> GraphService:
    return GraphService(MemoryGraphStore(), MemoryIndex(), HashEmbedder())


def llm_graph(*answers: dict[str, Any]) -> GraphService:
    store = MemoryGraphStore()
    llm = ScriptedLLM(*(json.dumps({"delete": [], "refine": []} | a) for a in answers))
    return GraphService(store, MemoryIndex(), HashEmbedder(), LLMGraphExtractor(llm, store))


def item(source: str, relation: str, destination: str, **extra: Any) -> dict[str, Any]:
    ends = {"source_type": "person", "destination_type": "thing"}
    return {"source": source, "relation": relation, "destination": destination} | ends | extra


def test_a_new_employer_refines_the_relation_and_keeps_the_old_version() -> None:
    graph = offline()
    say(graph, "Alice works at MIT", "t-a")
    changes = say(graph, "Alice now works at Stanford", "t-b")
    assert changes.added == [] and changes.closed == []
    [(old, new)] = changes.refined
    assert (old.destination, new.destination) == ("MIT", "Stanford") and new.refined_from == old.id
    stored = {r.id: r for r in history(graph)}
    assert stored[old.id].valid_to is not None and stored[old.id].closed_by == "t-b"
    assert stored[new.id].current and stored[new.id].refined_from == old.id
    assert changes.counts() == {"relations_added": 1, "relations_closed": 1, "relations_refined": 1}
    [listed] = changes.relations().refined
    assert (listed.destination, listed.refined_from.destination, listed.refined_from.id) == ("Stanford", "MIT", old.id)


def test_liking_turned_disliking_is_a_refine_of_the_kind() -> None:
    graph = offline()
    say(graph, "I love sushi")
    changes = say(graph, "I hate sushi")
    assert [(o.relation, n.relation, n.destination) for o, n in changes.refined] == [("likes", "dislikes", "sushi")]


def test_a_negation_closes_without_refining() -> None:
    graph = offline()
    say(graph, "I love sushi")
    changes = say(graph, "I don't like sushi anymore")
    assert changes.refined == [] and [r.destination for r in changes.closed] == ["sushi"]


def test_two_changes_in_one_run_refine_once_from_the_stored_version() -> None:
    graph = offline()
    say(graph, "Alice works at MIT")
    changes = say(graph, "Alice works at Stanford. Alice works at Google")
    [(old, new)] = changes.refined
    assert (old.destination, new.destination) == ("MIT", "Google") and changes.added == changes.closed == []
    assert {r.destination for r in history(graph)} == {"MIT", "Google"}  # Stanford never held past this run


def test_the_llm_refines_an_existing_relation_by_its_id() -> None:
    graph = llm_graph(
        {"relations": [item("user", "friend", "Tom")]},
        {"relations": [], "refine": [item("user", "colleague", "Tom", id=0)]},
    )
    say(graph, "My friend Tom")
    changes = say(graph, "Actually Tom is my colleague, not a friend")
    [(old, new)] = changes.refined
    assert (old.relation, new.relation, new.refined_from) == ("friend", "colleague", old.id)
    current = [r for r in history(graph) if r.current]
    assert [(r.relation, r.destination) for r in current] == [("colleague", "Tom")]


def test_a_refine_of_an_unknown_id_adds_the_relation_and_closes_nothing() -> None:
    graph = llm_graph(
        {"relations": [item("user", "lives_in", "Oslo")]},
        {"relations": [item("user", "likes", "jazz")], "refine": [item("user", "likes", "blues", id=7)]},
    )
    say(graph, "I live in Oslo")
    changes = say(graph, "I like jazz and blues")
    assert changes.refined == [] and changes.closed == []
    assert {r.destination for r in history(graph) if r.current} == {"Oslo", "jazz", "blues"}


def test_a_move_told_in_the_new_shapes_refines_the_home_a_pronoun_gave() -> None:
    graph = offline()
    say(graph, "My sister, Maren, moved to Oslo. She works at Equinor.")
    changes = say(graph, "Maren recently moved to Bergen and still works at Equinor.")
    assert [(o.destination, n.destination) for o, n in changes.refined] == [("Oslo", "Bergen")]
    assert {(r.source, r.relation, r.destination) for r in history(graph) if r.current} == {
        ("u1", "sister", "Maren"),
        ("Maren", "lives_in", "Bergen"),
        ("Maren", "works_at", "Equinor"),
    }
