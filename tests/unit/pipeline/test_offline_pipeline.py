"""The whole pipeline without an LLM (the local default) and with seed-004 shortcuts in front of one."""

from __future__ import annotations

from engram.domain.models import AddRequest, Event, Message, Scope
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.reconcile.llm import LLMReconciler
from engram.reconcile.offline import KeyReconciler
from engram.reconcile.shortcuts import ShortcutExtractor, ShortcutReconciler
from engram.rules.extractor import OfflineExtractor
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex, ScriptedLLM, facts_json, memory_json

SCOPE = Scope(tenant_id="local", user_id="alice")


def offline() -> tuple[IngestPipeline, MemoryFactStore]:
    facts = MemoryFactStore()
    return IngestPipeline(facts, MemoryIndex(), HashEmbedder(), OfflineExtractor(), KeyReconciler()), facts


def say(pipeline: IngestPipeline, text: str, task: str) -> list[tuple[Event, str]]:
    request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice")
    return [(r.event, r.memory) for r in pipeline.run(SCOPE, request, task).results]


def test_moving_supersedes_the_old_city_and_keeps_it_in_history() -> None:
    pipeline, facts = offline()
    say(pipeline, "Hi, I'm Alice. I live in Berlin.", "t1")
    berlin = next(f for f in facts.list_current("local", "alice").items if f.fact_key == "location")
    say(pipeline, "I moved to Munich last month", "t2")
    current = {f.fact_key: f for f in facts.list_current("local", "alice").items}
    assert current["location"].fact_value == "Munich" and current["location"].id == berlin.id
    assert current["name"].fact_value == "Alice"
    assert [e.new_memory for e in facts.history("local", berlin.id) if e.event is Event.ADD] == [berlin.text]
    assert any(e.old_memory == berlin.text for e in facts.history("local", berlin.id) if e.event is Event.UPDATE)


def test_a_retracted_preference_leaves_no_current_preference() -> None:
    pipeline, facts = offline()
    say(pipeline, "I love pizza", "t1")
    assert say(pipeline, "I don't like pizza anymore", "t2")[0][0] is Event.DELETE
    assert not [f for f in facts.list_current("local", "alice").items if "pizza" in f.text.lower()]


def test_saying_the_same_thing_twice_changes_nothing() -> None:
    pipeline, facts = offline()
    say(pipeline, "I have a dog named Max", "t1")
    assert say(pipeline, "I have a dog named Max", "t2") == []
    assert len(facts.list_current("local", "alice").items) == 1


def with_shortcuts() -> tuple[IngestPipeline, MemoryFactStore, ScriptedLLM]:
    """The pipeline as bootstrap wires it with an LLM: rules first, the LLM for what they miss."""
    llm = ScriptedLLM()
    facts = MemoryFactStore()
    pipeline = IngestPipeline(
        facts,
        MemoryIndex(),
        HashEmbedder(),
        ShortcutExtractor(OfflineExtractor(), LLMFactExtractor(llm)),
        ShortcutReconciler(KeyReconciler(), LLMReconciler(llm)),
    )
    return pipeline, facts, llm


def test_shortcuts_skip_the_llm_for_statements_the_rules_understand() -> None:
    pipeline, facts, llm = with_shortcuts()
    say(pipeline, "I love pizza", "t1")
    say(pipeline, "I don't like pizza anymore", "t2")
    assert llm.calls == []
    llm.answers.append(facts_json("Is writing a thesis on graph neural networks"))
    say(pipeline, "These days my thesis on graph neural networks eats all my evenings", "t3")
    assert len(llm.calls) == 1
    assert [f.text for f in facts.list_current("local", "alice").items] == [
        "Is writing a thesis on graph neural networks"
    ]


def test_facts_an_llm_extracted_are_reconciled_by_the_llm_even_with_keys() -> None:
    """An LLM's keys are free-form: the key rules would add a paraphrase the LLM would call NONE."""
    pipeline, facts, llm = with_shortcuts()
    keyed = (
        '{"facts": [{"text": "%s", "fact_key": "hobby", "fact_value": "%s", '
        '"memory_bank": "Interests", "importance": 0.5}]}'
    )
    llm.answers.append(keyed % ("Loves hiking in the Alps", "hiking"))
    say(pipeline, "Lately the Alps and long hikes are what my weekends are about", "t1")
    llm.answers += [
        keyed % ("Really loves hiking in the Alps", "the Alps"),
        memory_json({"id": "0", "text": "Loves hiking in the Alps", "event": "NONE"}),
    ]
    say(pipeline, "Most weekends I'm off hiking somewhere in the Alps, honestly", "t2")
    assert [c["name"] for c in llm.calls] == ["facts", "facts", "memory"]  # the LLM decided
    assert [f.text for f in facts.list_current("local", "alice").items] == ["Loves hiking in the Alps"]
