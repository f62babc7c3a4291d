"""The basic pipeline with a scripted LLM: what a user's memory looks like after each kind of decision."""

from __future__ import annotations

import json

import pytest

from engram.domain.errors import LLMOutputError
from engram.domain.models import AddRequest, Event, Message, ReconcileStrategy, Scope
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.reconcile.llm import LLMReconciler
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex, ScriptedLLM, facts_json, memory_json

SCOPE = Scope(tenant_id="acme", user_id="alice")


def make(llm: ScriptedLLM) -> tuple[IngestPipeline, MemoryFactStore, MemoryIndex]:
    facts, index = MemoryFactStore(), MemoryIndex()
    pipeline = IngestPipeline(facts, index, HashEmbedder(), LLMFactExtractor(llm), LLMReconciler(llm))
    return pipeline, facts, index


def add(pipeline: IngestPipeline, text: str, task_id: str, **kw: object) -> list[tuple[Event, str]]:
    request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice", **kw)  # type: ignore[arg-type]
    outcome = pipeline.run(SCOPE, request, task_id)
    return [(r.event, r.memory) for r in outcome.results]


def seed(pipeline: IngestPipeline, llm: ScriptedLLM, *texts: str) -> None:
    llm.answers += [facts_json(*texts)]
    if pipeline.facts.list_current("acme", "alice").items:  # type: ignore[attr-defined]
        llm.answers += [memory_json(*({"id": str(100 + i), "text": t, "event": "ADD"} for i, t in enumerate(texts)))]
    add(pipeline, " ".join(texts), "seed-" + texts[0])


def test_add_when_nothing_is_known_needs_no_reconciliation_call() -> None:
    llm = ScriptedLLM(facts_json("Name is Alice", "Loves pizza"))
    pipeline, facts, index = make(llm)
    assert add(pipeline, "Hi, I'm Alice and I love pizza", "t1") == [
        (Event.ADD, "Name is Alice"),
        (Event.ADD, "Loves pizza"),
    ]
    assert len(llm.calls) == 1  # extraction only: no similar memories, nothing to reconcile
    assert facts.texts("acme", "alice") == ["Loves pizza", "Name is Alice"]
    assert len(index.ids("acme", "alice")) == 2


def test_update_keeps_the_id_and_the_old_text_in_history() -> None:
    llm = ScriptedLLM(facts_json("Lives in Berlin"))
    pipeline, facts, index = make(llm)
    add(pipeline, "I live in Berlin", "t1")
    (old,) = facts.list_current("acme", "alice").items
    llm.answers += [
        facts_json("Moved to Munich"),
        memory_json({"id": "0", "text": "Lives in Munich", "event": "UPDATE", "old_memory": "Lives in Berlin"}),
    ]
    assert add(pipeline, "I moved to Munich", "t2") == [(Event.UPDATE, "Lives in Munich")]
    (new,) = facts.list_current("acme", "alice").items
    assert new.id == old.id and new.version == old.version + 1
    assert [(e.event, e.old_memory, e.new_memory) for e in facts.history("acme", old.id)] == [
        (Event.ADD, None, "Lives in Berlin"),
        (Event.UPDATE, "Lives in Berlin", "Lives in Munich"),
    ]
    assert index.docs[("acme", "alice", old.id)].text == "Lives in Munich"
    # the model saw a short integer id, never the UUID
    assert old.id not in llm.calls[-1]["user"] and '"id": "0"' in llm.calls[-1]["user"]


def test_delete_closes_validity_and_removes_the_vector() -> None:
    llm = ScriptedLLM(facts_json("Loves pizza"))
    pipeline, facts, index = make(llm)
    add(pipeline, "I love pizza", "t1")
    (old,) = facts.list_current("acme", "alice").items
    llm.answers += [
        facts_json("No longer likes pizza"),
        memory_json({"id": "0", "text": "Loves pizza", "event": "DELETE"}),
    ]
    assert add(pipeline, "I don't like pizza anymore", "t2") == [(Event.DELETE, "Loves pizza")]
    assert facts.texts("acme", "alice") == []
    assert facts.get("acme", old.id, include_closed=True).valid_to is not None
    assert index.ids("acme", "alice") == set()


def test_none_changes_nothing() -> None:
    llm = ScriptedLLM(facts_json("Loves pizza"))
    pipeline, facts, _ = make(llm)
    add(pipeline, "I love pizza", "t1")
    llm.answers += [
        facts_json("Really loves pizza a lot"),
        memory_json({"id": "0", "text": "Loves pizza", "event": "NONE"}),
    ]
    assert add(pipeline, "pizza is really great, I love it a lot", "t2") == []
    assert facts.texts("acme", "alice") == ["Loves pizza"]


def test_near_duplicate_is_skipped_before_the_llm() -> None:
    llm = ScriptedLLM(facts_json("Loves pizza"), facts_json("Loves pizza"))
    pipeline, facts, _ = make(llm)
    add(pipeline, "I love pizza", "t1")
    assert add(pipeline, "I love pizza!", "t2") == []
    assert len(llm.calls) == 2  # two extractions, no reconciliation call
    assert facts.texts("acme", "alice") == ["Loves pizza"]


def test_hallucinated_id_never_touches_another_memory() -> None:
    llm = ScriptedLLM(facts_json("Works at Google"))
    pipeline, facts, _ = make(llm)
    add(pipeline, "I work at Google", "t1")
    llm.answers += [
        facts_json("Works at Google as an engineer"),
        memory_json(
            {"id": "7", "text": "Works at Google as an engineer", "event": "UPDATE"},
            {"id": "9", "text": "whatever", "event": "DELETE"},
            {"id": "0", "text": "Works at Google", "event": "NONE"},
        ),
    ]
    assert add(pipeline, "I'm an engineer at Google", "t2") == [(Event.ADD, "Works at Google as an engineer")]
    assert facts.texts("acme", "alice") == ["Works at Google", "Works at Google as an engineer"]


def test_malformed_json_is_retried_with_the_error_fed_back() -> None:
    llm = ScriptedLLM(facts_json("Likes jazz"))
    pipeline, _facts, _ = make(llm)
    add(pipeline, "I like jazz", "t1")
    llm.answers += [
        "Sure! here you go: {not json",
        facts_json("Likes jazz and blues"),
        '```json\n{"memory": [{"id": "0", "event": "WHATEVER"}]}\n```',
        memory_json({"id": "0", "text": "Likes jazz and blues", "event": "UPDATE", "old_memory": "Likes jazz"}),
    ]
    assert add(pipeline, "I like jazz and blues", "t2") == [(Event.UPDATE, "Likes jazz and blues")]
    assert "could not be used" in llm.calls[2]["user"]  # extraction retried
    assert "unknown event" in llm.calls[4]["user"]  # reconciliation retried


def test_unusable_answers_fail_the_task_instead_of_dropping_facts() -> None:
    llm = ScriptedLLM("nope", "still nope", "[]")
    pipeline, facts, _ = make(llm)
    with pytest.raises(LLMOutputError):
        add(pipeline, "I like jazz", "t1")
    assert facts.texts("acme", "alice") == []


def test_contradiction_deleted_without_replacement_keeps_the_new_fact() -> None:
    llm = ScriptedLLM(facts_json("Lives in Berlin"))
    pipeline, facts, _ = make(llm)
    add(pipeline, "I live in Berlin", "t1")
    llm.answers += [
        facts_json("Lives in Munich"),
        memory_json({"id": "0", "text": "Lives in Berlin", "event": "DELETE"}),  # forgot to add Munich
    ]
    results = add(pipeline, "I live in Munich now", "t2")
    assert (Event.DELETE, "Lives in Berlin") in results and (Event.ADD, "Lives in Munich") in results
    assert facts.texts("acme", "alice") == ["Lives in Munich"]


def test_update_that_loses_details_is_retried_then_kept_beside_the_old_memory() -> None:
    llm = ScriptedLLM(facts_json("Lives in Dallas and works at Google"))
    pipeline, facts, _ = make(llm)
    add(pipeline, "I live in Dallas and work at Google", "t1")
    lossy = memory_json({"id": "0", "text": "Lives in Seattle", "event": "UPDATE"})
    llm.answers += [facts_json("Moved to Seattle"), lossy, lossy]
    add(pipeline, "I moved to Seattle", "t2")
    assert "lost" in llm.calls[-1]["user"] and "google" in llm.calls[-1]["user"].lower()
    assert facts.texts("acme", "alice") == ["Lives in Dallas and works at Google", "Lives in Seattle"]


def test_update_that_merges_is_accepted() -> None:
    llm = ScriptedLLM(facts_json("Lives in Dallas and works at Google"))
    pipeline, _facts, _ = make(llm)
    add(pipeline, "I live in Dallas and work at Google", "t1")
    llm.answers += [
        facts_json("Moved to Seattle"),
        memory_json({"id": "0", "text": "Moved from Dallas to Seattle and works at Google", "event": "UPDATE"}),
    ]
    assert add(pipeline, "I moved to Seattle", "t2") == [
        (Event.UPDATE, "Moved from Dallas to Seattle and works at Google")
    ]


def test_relevance_strategy_maps_new_update_delete() -> None:
    llm = ScriptedLLM(facts_json("Has a dog named Max"))
    pipeline, _facts, _ = make(llm)
    add(pipeline, "I have a dog named Max", "t1")
    llm.answers += [
        facts_json("Dog Max is a labrador"),
        json.dumps(
            {
                "operations": [
                    {
                        "operation": "UPDATE",
                        "id": "0",
                        "content": "Has a dog named Max who is a labrador",
                        "importance": 0.7,
                        "relevance": 0.7,
                        "reasoning": "same dog",
                    }
                ]
            }
        ),
    ]
    results = add(pipeline, "My dog Max is a labrador", "t2", strategy=ReconcileStrategy.RELEVANCE)
    assert results == [(Event.UPDATE, "Has a dog named Max who is a labrador")]
    assert "relevance" in llm.calls[-1]["system"].lower()


def test_deduplicate_false_adds_every_fact() -> None:
    llm = ScriptedLLM(facts_json("Loves pizza"), facts_json("Loves pizza"))
    pipeline, facts, _ = make(llm)
    add(pipeline, "I love pizza", "t1")
    add(pipeline, "I love pizza", "t2", deduplicate=False)
    assert facts.texts("acme", "alice") == ["Loves pizza", "Loves pizza"]


def test_infer_false_stores_messages_as_given_without_llm() -> None:
    llm = ScriptedLLM()
    pipeline, _facts, _ = make(llm)
    assert add(pipeline, "Remember: the wifi password is hunter2", "t1", infer=False) == [
        (Event.ADD, "Remember: the wifi password is hunter2")
    ]
    assert llm.calls == []


def test_replaying_a_task_adds_nothing_twice() -> None:
    llm = ScriptedLLM(facts_json("Loves pizza"), facts_json("Loves pizza"))
    pipeline, facts, _ = make(llm)
    add(pipeline, "I love pizza", "t1", deduplicate=False)
    add(pipeline, "I love pizza", "t1", deduplicate=False)
    assert facts.texts("acme", "alice") == ["Loves pizza"]
