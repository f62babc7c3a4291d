"""Importance stays within 0-1 whatever an LLM answers: clamped, and the task result says so."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from engram.domain.models import AddRequest, Event, Fact, MemoryPatch, Message, ReconcileStrategy, Scope
from engram.domain.steps import CandidateFact, Decision
from engram.pipeline.ingest import IngestOutcome
from tests.fakes import ScriptedLLM, facts_json
from tests.unit.reconcile.test_reconciliation import make

SCOPE = Scope(tenant_id="acme", user_id="alice")


def run(llm: ScriptedLLM, pipeline: object, text: str, task_id: str, **kw: object) -> IngestOutcome:
    request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice", **kw)  # type: ignore[arg-type]
    return pipeline.run(SCOPE, request, task_id)  # type: ignore[attr-defined,no-any-return]


def operations(*items: dict[str, object]) -> str:
    base = {"relevance": 0.9, "reasoning": "r"}
    return json.dumps({"operations": [base | item for item in items]})


def test_relevance_importance_of_7_is_stored_as_1_and_noted() -> None:
    llm = ScriptedLLM(facts_json("Has a dog named Max"))
    pipeline, facts, _ = make(llm)
    run(llm, pipeline, "I have a dog named Max", "t1")
    (dog,) = facts.list_current("acme", "alice").items
    llm.answers += [
        facts_json("Dog Max is a labrador", "Plays the cello"),
        operations(
            {"operation": "UPDATE", "id": "0", "content": "Has a dog named Max, a labrador", "importance": 7},
            {"operation": "NEW", "id": None, "content": "Plays the cello", "importance": -3},
        ),
    ]

    outcome = run(
        llm, pipeline, "My dog Max is a labrador. I play the cello.", "t2", strategy=ReconcileStrategy.RELEVANCE
    )

    stored = {f.text: f.importance for f in facts.list_current("acme", "alice").items}
    assert stored == {"Has a dog named Max, a labrador": 1.0, "Plays the cello": 0.0}
    notes = {r.memory: r.note for r in outcome.results}
    assert notes == {
        "Has a dog named Max, a labrador": "importance 7 clamped to 1.0",
        "Plays the cello": "importance -3 clamped to 0.0",
    }
    assert facts.history("acme", dog.id)[-1].note == "importance 7 clamped to 1.0"


def test_extracted_importance_out_of_range_is_clamped_and_noted() -> None:
    llm = ScriptedLLM(json.dumps({"facts": [{"text": "Allergic to peanuts", "importance": 12.5}]}))
    pipeline, facts, _ = make(llm)
    outcome = run(llm, pipeline, "I'm allergic to peanuts", "t1")
    (memory,) = facts.list_current("acme", "alice").items
    assert memory.importance == 1.0
    assert [(r.event, r.note) for r in outcome.results] == [(Event.ADD, "importance 12.5 clamped to 1.0")]


@pytest.mark.parametrize("value", [1.5, -0.1, float("nan"), float("inf")])
def test_the_domain_refuses_importance_outside_0_to_1(value: float) -> None:
    for build in (
        lambda: MemoryPatch(importance=value),
        lambda: CandidateFact(text="x", importance=value),
        lambda: Decision(event=Event.ADD, text="x", importance=value),
    ):
        with pytest.raises(ValidationError, match="importance"):
            build()


def test_a_memory_stored_before_the_bounds_reads_back_clamped() -> None:
    stored = Fact(tenant_id="acme", user_id="alice", text="Lives in Berlin").model_dump(mode="json")
    assert Fact.model_validate(stored | {"importance": 7}).importance == 1.0
