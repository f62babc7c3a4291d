"""A protected memory is changed only by its client: an add that contradicts it stores the new
statement beside it, and the task result says so (offline rules and an LLM alike)."""

from __future__ import annotations

from engram.domain.models import AddRequest, Event, Fact, MemoryPatch, Message, Scope, TaskResult
from engram.domain.ports import VectorIndex
from engram.pipeline.ingest import IngestOutcome, IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.reconcile.llm import LLMReconciler
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from engram.services.memory import MemoryService
from tests.fakes import (
    HashEmbedder,
    MemoryFactStore,
    MemoryIndex,
    MemoryQueue,
    MemoryTaskStore,
    ScriptedLLM,
    facts_json,
    memory_json,
)

SCOPE = Scope(tenant_id="acme", user_id="alice")


class World:
    def __init__(self, llm: ScriptedLLM | None = None, index: VectorIndex | None = None) -> None:
        self.facts, self.index, embedder = MemoryFactStore(), index or MemoryIndex(), HashEmbedder()
        if llm is None:
            self.pipeline = IngestPipeline(self.facts, self.index, embedder, OfflineExtractor(), KeyReconciler())
        else:
            self.pipeline = IngestPipeline(self.facts, self.index, embedder, LLMFactExtractor(llm), LLMReconciler(llm))
        self.service = MemoryService(self.facts, self.index, embedder, MemoryTaskStore(), MemoryQueue())

    def say(self, text: str, task_id: str) -> IngestOutcome:
        request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice")
        return self.pipeline.run(SCOPE, request, task_id)

    def protect(self, text: str) -> Fact:
        (fact,) = [f for f in self.current() if f.text == text]
        return self.service.update("acme", fact.id, MemoryPatch(is_protected=True))

    def current(self) -> list[Fact]:
        return self.facts.list_current("acme", "alice", limit=100).items


def untouched(world: World, before: Fact) -> None:
    now = world.facts.get("acme", before.id)
    assert (now.text, now.version, now.valid_to, now.is_protected) == (before.text, before.version, None, True)
    assert [e.event for e in world.facts.history("acme", before.id)] == [Event.ADD, Event.UPDATE]  # add, PATCH
    assert world.index.docs[("acme", "alice", before.id)].text == before.text  # type: ignore[attr-defined]


def beside(results: list[TaskResult], protected: Fact) -> TaskResult:
    (result,) = [r for r in results if r.note and f"kept beside protected {protected.id}" in r.note]
    assert result.event is Event.ADD and result.id != protected.id
    return result


def test_offline_a_move_is_stored_beside_the_protected_city() -> None:
    world = World()
    world.say("I live in Berlin", "t1")
    berlin = world.protect("Lives in Berlin")

    outcome = world.say("I moved to Munich", "t2")

    untouched(world, berlin)
    munich = beside(outcome.results, berlin)
    assert "Munich" in munich.memory
    assert sorted(f.text for f in world.current()) == sorted(["Lives in Berlin", munich.memory])
    assert outcome.counts["UPDATE"] == 0 and outcome.counts["ADD"] == 1
    # Unprotected, the same statement replaces the city again (the usual offline behaviour).
    world.service.update("acme", berlin.id, MemoryPatch(is_protected=False))
    assert {r.event for r in world.say("I live in Hamburg now", "t3").results} >= {Event.UPDATE}


def test_offline_a_retraction_keeps_the_protected_preference_and_stores_the_retraction() -> None:
    world = World()
    world.say("I love pizza", "t1")
    (pizza,) = world.current()
    pizza = world.protect(pizza.text)

    outcome = world.say("I don't like pizza anymore", "t2")

    untouched(world, pizza)
    retraction = beside(outcome.results, pizza)
    assert "pizza" in retraction.memory.lower() and retraction.memory != pizza.text
    assert len(world.current()) == 2


def test_llm_update_of_a_protected_memory_is_stored_beside_it() -> None:
    llm = ScriptedLLM(facts_json("Lives in Berlin"))
    world = World(llm)
    world.say("I live in Berlin", "t1")
    berlin = world.protect("Lives in Berlin")
    llm.answers += [
        facts_json("Moved to Munich"),
        memory_json({"id": "0", "text": "Lives in Munich", "event": "UPDATE", "old_memory": "Lives in Berlin"}),
    ]

    outcome = world.say("I moved to Munich", "t2")

    untouched(world, berlin)
    assert beside(outcome.results, berlin).memory == "Moved to Munich"
    assert sorted(f.text for f in world.current()) == ["Lives in Berlin", "Moved to Munich"]


def test_llm_delete_of_a_protected_memory_is_not_applied() -> None:
    llm = ScriptedLLM(facts_json("Lives in Berlin"))
    world = World(llm)
    world.say("I live in Berlin", "t1")
    berlin = world.protect("Lives in Berlin")
    llm.answers += [
        facts_json("Lives in Munich"),
        memory_json(
            {"id": "0", "text": "Lives in Berlin", "event": "DELETE"},
            {"id": "1", "text": "Lives in Munich", "event": "ADD"},
        ),
    ]

    outcome = world.say("I live in Munich now", "t2")

    untouched(world, berlin)
    assert [r.event for r in outcome.results] == [Event.ADD]
    assert beside(outcome.results, berlin).memory == "Lives in Munich"
    assert outcome.counts["DELETE"] == 0


def test_llm_delete_alone_stores_the_retraction_beside_the_protected_memory() -> None:
    llm = ScriptedLLM(facts_json("Loves pizza"))
    world = World(llm)
    world.say("I love pizza", "t1")
    pizza = world.protect("Loves pizza")
    llm.answers += [
        facts_json("No longer likes pizza"),
        memory_json({"id": "0", "text": "Loves pizza", "event": "DELETE"}),
    ]

    outcome = world.say("I don't like pizza anymore", "t2")

    untouched(world, pizza)
    assert beside(outcome.results, pizza).memory == "No longer likes pizza"


def test_the_client_still_changes_and_deletes_a_protected_memory() -> None:
    world = World()
    world.say("I live in Berlin", "t1")
    berlin = world.protect("Lives in Berlin")
    assert world.service.update("acme", berlin.id, MemoryPatch(text="Lives in Potsdam")).text == "Lives in Potsdam"
    world.service.delete("acme", berlin.id)
    assert world.current() == []


def test_the_graph_keeps_a_relation_a_protected_memory_states() -> None:
    from engram.graph.service import GraphService
    from tests.fakes import MemoryGraphStore

    world = World()
    graph = GraphService(MemoryGraphStore(), MemoryIndex(), HashEmbedder())
    world.pipeline.graph = graph
    world.say("I live in Berlin. I work at Siemens.", "t1")
    world.protect("Lives in Berlin")

    outcome = world.say("I moved to Munich. I work at BMW now.", "t2")

    current = {(r.relation, r.destination) for r in graph.relations("acme", "alice", 100, None).relations}
    # The protected home stays beside the new one; the unprotected employer is replaced as usual.
    assert current == {("lives_in", "Berlin"), ("lives_in", "Munich"), ("works_at", "BMW")}
    assert outcome.counts["relations_kept_protected"] == 1 and outcome.counts["relations_closed"] == 1
