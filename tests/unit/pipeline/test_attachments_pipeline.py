"""Seed 000's cases: attachments follow their facts through reconciliation, and none is lost."""

from __future__ import annotations

import json
from dataclasses import dataclass

from engram.domain.models import AddRequest, Attachment, AttachmentInput, Event, Fact, Message, Scope
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.reconcile.llm import LLMReconciler
from engram.reconcile.prompts import reconcile_schema, reconcile_system_prompt
from tests.fakes import (
    HashEmbedder,
    MemoryAttachmentStore,
    MemoryBlobs,
    MemoryFactStore,
    MemoryIndex,
    ScriptedLLM,
    facts_json,
)

SCOPE = Scope(tenant_id="acme", user_id="alice")


@dataclass
class World:
    pipeline: IngestPipeline
    facts: MemoryFactStore
    llm: ScriptedLLM
    store: MemoryAttachmentStore
    blobs: MemoryBlobs

    def attachment(self, name: str) -> str:
        att = Attachment(
            tenant_id="acme",
            name=name,
            media_type="image/png",
            blob_key=f"k/{name}",
            description=f"photo {name}",
            stored=True,
        )
        self.store.create(att)
        self.blobs.put(att.blob_key, b"bytes")
        return att.id

    def add(self, text: str, *attachments: str, task: str, **kw: object) -> list[tuple[Event, str, list[str]]]:
        request = AddRequest(
            messages=[Message(role="user", content=text)],
            user_id="alice",
            attachments=[AttachmentInput(attachment_id=a) for a in attachments],
            **kw,  # type: ignore[arg-type]
        )
        outcome = self.pipeline.run(SCOPE, request, task)
        return [(r.event, r.memory, r.attachments) for r in outcome.results]

    def memories(self) -> dict[str, list[str]]:
        return {f.text: f.attachment_ids for f in self.facts.list_current("acme", "alice", limit=100).items}

    def memory(self, text: str) -> Fact:
        (fact,) = [f for f in self.facts.list_current("acme", "alice").items if f.text == text]
        return fact


def world() -> World:
    llm, facts, store, blobs = ScriptedLLM(), MemoryFactStore(), MemoryAttachmentStore(), MemoryBlobs()
    pipeline = IngestPipeline(
        facts, MemoryIndex(), HashEmbedder(), LLMFactExtractor(llm), LLMReconciler(llm), attachments=store, blobs=blobs
    )
    return World(pipeline, facts, llm, store, blobs)


def memory(*items: dict[str, object]) -> str:
    return json.dumps({"memory": [{"old_memory": None, **item} for item in items]})


def test_1_same_fact_twice_without_extraction_ends_with_both_attachments() -> None:
    w = world()
    a, b = w.attachment("a"), w.attachment("b")
    w.add("Lives in Berlin", a, task="t1", infer=False)
    w.add("Lives in Berlin", b, task="t2", infer=False)
    assert w.memories() == {"Lives in Berlin": [a, b]}
    assert w.llm.calls == []
    assert w.store.holders("acme", a) == w.store.holders("acme", b) == [w.memory("Lives in Berlin").id]


def test_2_extraction_and_dedup_put_each_attachment_on_the_right_memory() -> None:
    w = world()
    a, b = w.attachment("a"), w.attachment("b")
    w.llm.answers.append(facts_json("Loves pizza", "Hates pineapple"))
    w.add("I love pizza and hate pineapple", a, task="t1")
    assert w.memories() == {"Loves pizza": [a], "Hates pineapple": [a]}
    w.llm.answers += [
        facts_json("Loves pineapple pizza"),
        lambda system, user: (
            memory(
                {"id": "0", "text": "Loves pizza", "event": "NONE", "attachments": ["A1"]},
                {
                    "id": "1",
                    "text": "Loves pineapple pizza",
                    "event": "UPDATE",
                    "old_memory": "Hates pineapple",
                    "attachments": ["A1", "A2"],
                },
            )
            if '"0"' in user
            else memory(
                {"id": "0", "text": "Hates pineapple", "event": "NONE", "attachments": ["A1"]},
                {"id": "1", "text": "Loves pineapple pizza", "event": "UPDATE", "attachments": ["A1", "A2"]},
            )
        ),
    ]
    w.add("Actually I love pineapple pizza now!", b, task="t2")
    call = w.llm.calls[-1]
    assert "A1" in call["user"] and "A2" in call["user"] and a not in call["user"] and b not in call["user"]
    assert "photo b" in call["user"]  # the model reads what the attachment is
    assert call["schema"] == reconcile_schema(with_attachments=True)
    held = w.memories()
    assert set(held) == {"Loves pizza", "Loves pineapple pizza"} or set(held) == {
        "Hates pineapple",
        "Loves pineapple pizza",
    }
    assert set(held["Loves pineapple pizza"]) == {a, b}
    assert all(a in v for v in held.values())


def test_4_none_with_a_new_attachment_adds_it_to_the_existing_memory() -> None:
    w = world()
    a = w.attachment("a")
    w.llm.answers.append(facts_json("Loves pizza"))
    w.add("I love pizza", task="t1")
    w.llm.answers += [
        facts_json("Really loves pizza"),
        memory({"id": "0", "text": "Loves pizza", "event": "NONE", "attachments": []}),
    ]
    results = w.add("I really love pizza", a, task="t2")
    assert w.memories() == {"Loves pizza": [a]}
    (result,) = results
    assert result[0] is Event.NONE and result[2] == [a]
    history = w.facts.history("acme", w.memory("Loves pizza").id)
    assert history[-1].attachments_added == [a] and "placed" in (history[-1].note or "")


def test_5_no_attachments_anywhere_sends_the_plain_prompt() -> None:
    w = world()
    w.llm.answers.append(facts_json("Loves pizza"))
    w.add("I love pizza", task="t1")
    w.llm.answers += [facts_json("Loves pizza a lot"), memory({"id": "0", "text": "Loves pizza", "event": "NONE"})]
    w.add("I love pizza a lot", task="t2")
    call = w.llm.calls[-1]
    assert call["system"] == reconcile_system_prompt("default")
    assert call["schema"] == reconcile_schema()
    assert call["user"] == (
        'Current memories:\n```\n[\n  {\n    "id": "0",\n    "text": "Loves pizza"\n  }\n]\n```\n\n'
        'New facts:\n```\n[\n  "Loves pizza a lot"\n]\n```\n'
    )


def test_6_old_memory_keeps_its_attachment_when_the_model_drops_it() -> None:
    w = world()
    a = w.attachment("a")
    w.llm.answers.append(facts_json("Lives in Berlin"))
    w.add("I live in Berlin", a, task="t1")
    w.llm.answers += [
        facts_json("Lives in Munich"),
        memory({"id": "0", "text": "Lives in Munich", "event": "UPDATE", "attachments": []}),
    ]
    (result,) = w.add("I live in Munich now", task="t2")
    assert w.memories() == {"Lives in Munich": [a]}
    assert "restored" in (result[0].value + str(w.facts.history("acme", w.memory("Lives in Munich").id)[-1].note))


def test_7_several_attachments_per_memory_and_per_call() -> None:
    w = world()
    a, b, c = w.attachment("a"), w.attachment("b"), w.attachment("c")
    w.llm.answers.append(facts_json("Has a dog named Max", "Lives in Berlin"))
    w.add("My dog Max and I live in Berlin", a, b, task="t1")
    assert w.memories() == {"Has a dog named Max": [a, b], "Lives in Berlin": [a, b]}
    w.llm.answers += [
        facts_json("Max is a labrador"),
        memory(
            {
                "id": "0",
                "text": "Has a dog named Max who is a labrador",
                "event": "UPDATE",
                "attachments": ["A1", "A2", "A3"],
            },
            {"id": "1", "text": "Lives in Berlin", "event": "NONE", "attachments": ["A1", "A2"]},
        ),
    ]
    w.add("Max is a labrador", c, task="t2")
    assert w.memories()["Has a dog named Max who is a labrador"] == [a, b, c]
    assert w.memories()["Lives in Berlin"] == [a, b]


def test_8_an_attachment_moves_on_update() -> None:
    w = world()
    a, b = w.attachment("a"), w.attachment("b")
    w.llm.answers.append(facts_json("Has a dog"))
    w.add("I have a dog", a, task="t1")
    w.llm.answers.append(facts_json("Dog photo at the beach"))
    w.add("dog beach photo", b, task="t2", deduplicate=False)
    w.llm.answers += [
        facts_json("Has a dog named Max"),
        lambda system, user: memory(
            *(
                {"id": str(i), "text": "Has a dog named Max", "event": "UPDATE", "attachments": ["A1", "A2"]}
                if 'Has a dog"' in line
                else {"id": str(i), "text": "Dog photo at the beach", "event": "NONE", "attachments": []}
                for i, line in enumerate(ln for ln in user.splitlines() if '"text"' in ln and "Max" not in ln)
            )
        ),
    ]
    w.add("My dog is called Max", task="t3")
    held = w.memories()
    assert held["Has a dog named Max"] == [a, b] and held["Dog photo at the beach"] == []
    moved_from = w.facts.history("acme", w.memory("Dog photo at the beach").id)[-1]
    assert moved_from.attachments_removed == [b]


def test_9_delete_keeps_the_mapping_with_the_memory_and_frees_unheld_bytes() -> None:
    w = world()
    a = w.attachment("a")
    w.llm.answers.append(facts_json("Loves pizza"))
    w.add("I love pizza", a, task="t1")
    pizza = w.memory("Loves pizza")
    w.llm.answers += [
        facts_json("No longer likes pizza"),
        memory({"id": "0", "text": "Loves pizza", "event": "DELETE", "attachments": []}),
    ]
    w.add("I don't like pizza anymore", task="t2")
    assert w.memories() == {}
    closed = w.facts.get("acme", pizza.id, include_closed=True)
    assert closed.attachment_ids == [a]  # the mapping went with the memory
    assert w.store.get("acme", a).deleted and "k/a" not in w.blobs.blobs  # nothing holds it: bytes removed


def test_9b_delete_moves_an_attachment_the_model_assigns_elsewhere() -> None:
    w = world()
    a = w.attachment("a")
    w.llm.answers.append(facts_json("Lives in Berlin"))
    w.add("I live in Berlin", a, task="t1")
    w.llm.answers += [
        facts_json("Lives in Munich"),
        memory(
            {"id": "0", "text": "Lives in Berlin", "event": "DELETE", "attachments": []},
            {"id": "1", "text": "Lives in Munich", "event": "ADD", "attachments": ["A1"]},
        ),
    ]
    w.add("I live in Munich", task="t2")
    assert w.memories() == {"Lives in Munich": [a]}
    assert not w.store.get("acme", a).deleted and "k/a" in w.blobs.blobs


def test_10_forgotten_and_invented_attachments_are_repaired() -> None:
    w = world()
    a, b = w.attachment("a"), w.attachment("b")
    w.llm.answers.append(facts_json("Lives in Berlin"))
    w.add("I live in Berlin", a, task="t1")
    w.llm.answers += [
        facts_json("Works at Siemens"),
        memory(
            {"id": "0", "text": "Lives in Berlin", "event": "NONE", "attachments": ["A7"]},
            {"id": "1", "text": "Works at Siemens", "event": "ADD", "attachments": ["A99"]},
        ),
    ]
    results = w.add("I work at Siemens", b, task="t2")
    assert w.memories() == {"Lives in Berlin": [a], "Works at Siemens": [b]}
    (added,) = [r for r in results if r[0] is Event.ADD]
    assert added[2] == [b]
