"""Summarise merges clusters of old similar memories with the LLM, faithfully, and never without one."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

import pytest

from engram.domain.models import Attachment, Event, Fact, MemoryBank
from engram.maintenance.summarise import SummariseService, find_clusters, must_keep
from engram.writes.unit_of_work import Lifecycle, history_event, index_doc
from tests.fakes import HashEmbedder, MemoryAttachmentStore, MemoryBlobs, MemoryFactStore, MemoryIndex, ScriptedLLM
from tests.unit.maintenance.test_maintenance_repair import MemoryFactScanner

DOG = "Has a dog named Max, a golden retriever who loves long walks in the park"
OLD = datetime.now(UTC) - timedelta(days=60)
SUMMARY = "Has a dog named Max, a golden retriever who loves long walks in the park every Sunday, near Hamburg"


@dataclass
class World:
    store: MemoryFactStore
    index: MemoryIndex
    embedder: HashEmbedder
    attachments: MemoryAttachmentStore
    blobs: MemoryBlobs

    def remember(self, text: str, age: timedelta = timedelta(days=60), **fields: object) -> Fact:
        when = datetime.now(UTC) - age
        fact = Fact(tenant_id="acme", user_id="alice", text=text, created_at=when, updated_at=when, valid_from=when)
        fact = fact.model_copy(update=fields)
        self.store.add(fact, history_event(fact, Event.ADD, None, text, "test"))
        self.index.upsert([index_doc(fact, self.embedder.embed([text])[0])])
        for attachment_id in fact.attachment_ids:
            self.attachments.link("acme", attachment_id, fact.id)
        return fact

    def service(self, llm: ScriptedLLM | None) -> SummariseService:
        life = Lifecycle(self.store, self.index, self.embedder, self.attachments, self.blobs)
        return SummariseService(MemoryFactScanner(self.store), life, llm)

    def current(self) -> dict[str, Fact]:
        return {f.id: f for f in self.store.list_current("acme", "alice", limit=1000).items}


@pytest.fixture
def world() -> World:
    return World(MemoryFactStore(), MemoryIndex(), HashEmbedder(), MemoryAttachmentStore(), MemoryBlobs())


def answer(text: str) -> str:
    return json.dumps({"summary": text})


def test_a_cluster_of_three_old_similar_facts_becomes_one_summary(world: World) -> None:
    world.blobs.put("blobs/photo", b"jpeg")
    world.attachments.create(
        Attachment(
            id="photo", tenant_id="acme", name="max.jpg", media_type="image/jpeg", blob_key="blobs/photo", stored=True
        )
    )
    originals = [
        world.remember(DOG, age=timedelta(days=90), attachment_ids=["photo"], importance=0.4),
        world.remember(DOG + " every Sunday", age=timedelta(days=80), importance=0.7),
        world.remember(DOG + " near Hamburg", age=timedelta(days=70)),
    ]
    protected = world.remember(DOG + " at 7 am", is_protected=True)
    recent = world.remember(DOG + " in the rain", age=timedelta(days=2))
    cat = world.remember("Has a cat named Luna who sleeps on the sofa")
    llm = ScriptedLLM(answer(SUMMARY))

    report = world.service(llm).run()

    assert report == {
        "skipped": False,
        "scopes": 1,
        "clusters": 1,
        "summaries": 1,
        "facts_summarised": 3,
        "failed": 0,
        "conflicts": 0,
        "usage": {"llm_calls": 1, "prompt_tokens": report["usage"]["prompt_tokens"], "completion_tokens": 5},
    }
    (call,) = llm.calls
    assert all(f.text in call["user"] for f in originals)
    assert protected.text not in call["user"] and recent.text not in call["user"]
    current = world.current()
    (summary,) = [f for f in current.values() if f.is_summarized]
    assert summary.text == SUMMARY
    assert summary.summarized_from == [f.id for f in originals]
    assert summary.attachment_ids == ["photo"] and summary.importance == 0.7
    assert set(current) == {summary.id, protected.id, recent.id, cat.id}
    assert world.index.ids("acme", "alice") == set(current)
    for original in originals:
        last = world.store.history("acme", original.id)[-1]
        assert (last.event, last.actor, last.note) == (Event.DELETE, "maintenance", f"summarised into {summary.id}")
    assert world.attachments.holders("acme", "photo") == [summary.id]
    assert world.blobs.get("blobs/photo") == b"jpeg"  # the attachment moved, its bytes stayed


def test_a_second_run_finds_nothing_left_to_summarise(world: World) -> None:
    for suffix in ("", " every Sunday", " near Hamburg"):
        world.remember(DOG + suffix)
    world.service(ScriptedLLM(answer(SUMMARY))).run()
    before = world.current()

    report = world.service(ScriptedLLM()).run()  # any LLM call would fail the test

    assert (report["clusters"], report["summaries"]) == (0, 0)
    assert world.current() == before


def test_a_summary_that_drops_a_place_is_sent_back_and_redone(world: World) -> None:
    for suffix in ("", " every Sunday", " near Hamburg"):
        world.remember(DOG + suffix)
    llm = ScriptedLLM(answer("Has a golden retriever named Max who loves walks every Sunday"), answer(SUMMARY))

    report = world.service(llm).run()

    assert report["summaries"] == 1 and len(llm.calls) == 2
    assert "Hamburg" in llm.calls[1]["user"]  # the retry says what was left out
    assert [f.text for f in world.current().values()] == [SUMMARY]


def test_when_no_usable_summary_comes_back_the_originals_stay(world: World) -> None:
    facts = [world.remember(DOG + suffix) for suffix in ("", " every Sunday", " near Hamburg")]
    llm = ScriptedLLM(*[answer("Has a dog")] * 3)

    report = world.service(llm).run()

    assert (report["failed"], report["summaries"]) == (1, 0)
    assert set(world.current()) == {f.id for f in facts}
    assert world.index.ids("acme", "alice") == {f.id for f in facts}


def test_only_facts_of_the_same_memory_bank_are_clustered(world: World) -> None:
    world.remember(DOG)
    world.remember(DOG + " every Sunday")
    world.remember(DOG + " near Hamburg", memory_bank=MemoryBank.INTERESTS)
    llm = ScriptedLLM()

    report = world.service(llm).run()

    assert report["clusters"] == 0 and llm.calls == []
    assert len(world.current()) == 3


def test_without_an_llm_nothing_is_summarised_and_the_run_says_so(world: World) -> None:
    facts = [world.remember(DOG + suffix) for suffix in ("", " every Sunday", " near Hamburg")]

    report = world.service(None).run()

    assert report["skipped"] is True and report["reason"] == "no LLM configured"
    assert report["summaries"] == 0
    assert set(world.current()) == {f.id for f in facts}
    assert len(world.store.events) == 3  # only the three ADDs of the setup: no history written


def test_clusters_gather_around_a_leader_at_the_threshold_and_respect_the_size_limits() -> None:
    close, far = [1.0, 0.0], [0.0, 1.0]
    near = [0.9, 0.436]  # cosine 0.9 with `close`
    assert find_clusters([close, near, far, close], 0.85, 3, 10) == [[0, 3, 1]]
    assert find_clusters([close, near, far, close], 0.95, 3, 10) == []
    assert find_clusters([close] * 5, 0.85, 2, 2) == [[0, 1], [2, 3]]


def test_must_keep_lists_names_places_dates_and_numbers_but_not_sentence_starts() -> None:
    kept = must_keep(["Moved to Munich on 2024-03-01. Has 2 kids, Anna and Ben", "Likes tea"])
    assert kept == ["2024-03-01", "2", "Munich", "Anna", "Ben"]
