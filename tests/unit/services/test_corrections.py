"""A correction (PATCH of a memory's text) re-derives what was read from the text, so later truth
reconciles against what the memory now says (issue 33, failure 3)."""

from __future__ import annotations

from engram.domain.models import AddRequest, MemoryPatch, Message, Scope
from engram.graph.service import GraphService
from engram.pipeline.ingest import IngestPipeline
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from engram.services.memory import MemoryService
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryGraphStore, MemoryIndex, MemoryQueue, MemoryTaskStore


class World:
    def __init__(self) -> None:
        self.facts, self.index, embedder = MemoryFactStore(), MemoryIndex(), HashEmbedder()
        self.graph = GraphService(MemoryGraphStore(), MemoryIndex(), embedder)
        self.pipeline = IngestPipeline(
            self.facts, self.index, embedder, OfflineExtractor(), KeyReconciler(), graph=self.graph
        )
        self.memories = MemoryService(
            self.facts, self.index, embedder, MemoryTaskStore(), MemoryQueue(), graph=self.graph
        )
        self.scope = Scope(tenant_id="t", user_id="u")
        self.adds = 0

    def say(self, text: str) -> None:
        self.adds += 1
        request = AddRequest(user_id="u", messages=[Message(role="user", content=text)])
        self.pipeline.run(self.scope, request, f"task-{self.adds}")

    def relations(self) -> set[tuple[str, str]]:
        page = self.graph.store.relations("t", "u", 100)
        return {(r.relation, r.destination) for r in page.relations}


def test_a_corrected_text_carries_its_own_key_value_relations_and_source() -> None:
    world = World()
    world.say("I live in Porto.")
    memory = world.facts.list_current("t", "u", 10).items[0]
    assert (memory.fact_key, memory.fact_value) == ("location", "Porto")

    fixed = world.memories.update("t", memory.id, MemoryPatch(text="Lives in Lisbon"))

    assert (fixed.fact_key, fixed.fact_value) == ("location", "Lisbon")
    assert fixed.source is not None and fixed.source.via == "patch"
    assert world.memories.source_messages("t", fixed) is None  # no message lies behind a person's correction
    assert ("lives_in", "Lisbon") in world.relations() and ("lives_in", "Porto") not in world.relations()

    world.say("I moved back to Porto.")
    now = world.facts.get("t", memory.id)
    assert (now.text, now.fact_value) == ("Lives in Porto", "Porto")
    assert now.source is not None and now.source.via == "add" and now.source.task_id == "task-2"


def test_a_text_without_a_key_clears_the_old_key() -> None:
    world = World()
    world.say("I live in Porto.")
    memory = world.facts.list_current("t", "u", 10).items[0]
    fixed = world.memories.update("t", memory.id, MemoryPatch(text="Has a view of the river"))
    assert (fixed.fact_key, fixed.fact_value) == (None, None)


def test_other_corrections_leave_the_text_derived_fields_alone() -> None:
    world = World()
    world.say("I live in Porto.")
    memory = world.facts.list_current("t", "u", 10).items[0]
    fixed = world.memories.update("t", memory.id, MemoryPatch(importance=0.9))
    assert (fixed.fact_key, fixed.fact_value, fixed.source) == (memory.fact_key, memory.fact_value, memory.source)
