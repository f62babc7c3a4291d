"""Seed 003: the relevance strategy (`strategy: "relevance"`) with a scripted LLM — what each
operation stores, what the task result and history say, one UPDATE per potential memory, and the
attachments the model is shown."""

from __future__ import annotations

import json
import re

from engram.domain.models import AddRequest, Event, Fact, Message, ReconcileStrategy, Scope
from engram.domain.steps import CandidateFact
from engram.pipeline.ingest import IngestOutcome, IngestPipeline
from engram.reconcile.llm import DecisionInterpreter
from engram.reconcile.prompts import reconcile_system_prompt
from tests.fakes import MemoryFactStore, ScriptedLLM, facts_json
from tests.unit.pipeline.test_attachments_pipeline import world
from tests.unit.reconcile.test_reconciliation import make

SCOPE = Scope(tenant_id="acme", user_id="alice")
RELEVANCE = ReconcileStrategy.RELEVANCE


def run(pipeline: IngestPipeline, text: str, task_id: str, **kw: object) -> IngestOutcome:
    request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice", **kw)  # type: ignore[arg-type]
    return pipeline.run(SCOPE, request, task_id)


def operations(*items: dict[str, object]) -> str:
    base = {"id": None, "importance": 0.7, "relevance": 0.7, "reasoning": "r"}
    return json.dumps({"operations": [base | item for item in items]})


def current(facts: MemoryFactStore) -> dict[str, Fact]:
    return {f.text: f for f in facts.list_current("acme", "alice", limit=100).items}


def history(facts: MemoryFactStore, memory_id: str) -> list[tuple[Event, str | None, str | None]]:
    return [(e.event, e.old_memory, e.new_memory) for e in facts.history("acme", memory_id)]


def test_new_adds_a_memory_beside_the_one_of_low_relevance() -> None:
    llm = ScriptedLLM(facts_json("Commutes to work by bus"))
    pipeline, facts, _ = make(llm)
    run(pipeline, "I commute to work by bus", "t1")
    (bus,) = facts.list_current("acme", "alice").items
    llm.answers += [
        facts_json("Bought a new bicycle for work"),
        operations({"operation": "NEW", "content": "Bought a new bicycle for work", "relevance": 0.3}),
    ]

    outcome = run(pipeline, "I bought a new bicycle for work", "t2", strategy=RELEVANCE)

    assert len(llm.calls) == 3  # the relevance call was made
    assert "[ID: 0] Commutes to work by bus" in llm.calls[-1]["user"]
    assert [(r.event, r.memory, r.previous_memory) for r in outcome.results] == [
        (Event.ADD, "Bought a new bicycle for work", None)
    ]
    stored = current(facts)
    assert set(stored) == {"Commutes to work by bus", "Bought a new bicycle for work"}
    assert history(facts, stored["Bought a new bicycle for work"].id) == [
        (Event.ADD, None, "Bought a new bicycle for work")
    ]
    assert history(facts, bus.id) == [(Event.ADD, None, "Commutes to work by bus")]


def test_update_merges_into_the_memory_and_keeps_its_id_and_old_text() -> None:
    llm = ScriptedLLM(facts_json("Lives in Dallas and works at Google"))
    pipeline, facts, _ = make(llm)
    run(pipeline, "I live in Dallas and work at Google", "t1")
    (old,) = facts.list_current("acme", "alice").items
    llm.answers += [
        facts_json("Moved to Seattle"),
        operations({"operation": "UPDATE", "id": "0", "content": "Moved from Dallas to Seattle and works at Google"}),
    ]

    outcome = run(pipeline, "I moved to Seattle", "t2", strategy=RELEVANCE)

    assert [(r.event, r.memory, r.previous_memory, r.id) for r in outcome.results] == [
        (Event.UPDATE, "Moved from Dallas to Seattle and works at Google", old.text, old.id)
    ]
    (new,) = facts.list_current("acme", "alice").items
    assert (new.id, new.version, new.text) == (
        old.id,
        old.version + 1,
        "Moved from Dallas to Seattle and works at Google",
    )
    assert history(facts, old.id) == [
        (Event.ADD, None, "Lives in Dallas and works at Google"),
        (Event.UPDATE, "Lives in Dallas and works at Google", "Moved from Dallas to Seattle and works at Google"),
    ]


def test_delete_retires_the_contradicted_memory() -> None:
    llm = ScriptedLLM(facts_json("Likes coffee"))
    pipeline, facts, index = make(llm)
    run(pipeline, "I like coffee", "t1")
    (old,) = facts.list_current("acme", "alice").items
    llm.answers += [
        facts_json("No longer likes coffee"),
        operations({"operation": "DELETE", "id": "0", "content": "Likes coffee", "relevance": 0.9}),
    ]

    outcome = run(pipeline, "I don't like coffee anymore", "t2", strategy=RELEVANCE)

    assert [(r.event, r.memory, r.id) for r in outcome.results] == [(Event.DELETE, "Likes coffee", old.id)]
    assert current(facts) == {}
    assert facts.get("acme", old.id, include_closed=True).valid_to is not None
    assert index.ids("acme", "alice") == set()
    assert [e.event for e in facts.history("acme", old.id)] == [Event.ADD, Event.DELETE]


def test_a_second_update_of_the_same_memory_for_one_potential_memory_is_dropped_and_noted() -> None:
    llm = ScriptedLLM(facts_json("Has a dog named Max"))
    pipeline, facts, _ = make(llm)
    run(pipeline, "I have a dog named Max", "t1")
    (dog,) = facts.list_current("acme", "alice").items
    llm.answers += [
        facts_json("Dog Max is a labrador"),
        operations(
            {"operation": "UPDATE", "id": "0", "content": "Has a dog named Max who is a labrador"},
            {"operation": "UPDATE", "id": "0", "content": "Has a dog named Max, a labrador"},
        ),
    ]

    outcome = run(pipeline, "My dog Max is a labrador", "t2", strategy=RELEVANCE)

    (result,) = outcome.results
    assert (result.event, result.memory) == (Event.UPDATE, "Has a dog named Max who is a labrador")
    assert result.note == 'a second UPDATE for "Dog Max is a labrador" dropped: one UPDATE per potential memory'
    assert list(current(facts)) == ["Has a dog named Max who is a labrador"]
    assert facts.history("acme", dog.id)[-1].note == result.note


def test_a_second_update_of_another_memory_for_one_potential_memory_becomes_new() -> None:
    llm = ScriptedLLM(facts_json("Has a dog named Max", "Walks the dog in the park"))
    pipeline, facts, _ = make(llm)
    run(pipeline, "I have a dog named Max and I walk the dog in the park", "t1")
    walks = current(facts)["Walks the dog in the park"]
    llm.answers += [
        facts_json("Dog Max is a labrador"),
        lambda _system, user: operations(
            {
                "operation": "UPDATE",
                "id": _short(user, "Has a dog named Max"),
                "content": "Has a dog named Max who is a labrador",
            },
            {
                "operation": "UPDATE",
                "id": _short(user, "Walks the dog in the park"),
                "content": "Walks the dog Max, a labrador, in the park",
            },
        ),
    ]

    outcome = run(pipeline, "My dog Max is a labrador", "t2", strategy=RELEVANCE)

    assert [(r.event, r.memory, r.note) for r in outcome.results] == [
        (Event.UPDATE, "Has a dog named Max who is a labrador", None),
        (
            Event.ADD,
            "Walks the dog Max, a labrador, in the park",
            'a second UPDATE for "Dog Max is a labrador" kept as a new memory: one UPDATE per potential memory',
        ),
    ]
    assert set(current(facts)) == {
        "Has a dog named Max who is a labrador",
        "Walks the dog in the park",  # not rewritten by the second UPDATE
        "Walks the dog Max, a labrador, in the park",
    }
    assert history(facts, walks.id) == [(Event.ADD, None, "Walks the dog in the park")]


def _short(user: str, text: str) -> str:
    found = re.search(rf"\[ID: (\d+)\] {re.escape(text)}", user)
    assert found, user
    return found.group(1)


def test_the_model_sees_each_memorys_attachments_and_the_update_keeps_them() -> None:
    w = world()
    photo = w.attachment("max.png")
    w.add("Has a dog named Max", photo, task="t1", infer=False)
    w.llm.answers += [
        facts_json("Dog Max is a labrador"),
        operations(
            {
                "operation": "UPDATE",
                "id": "0",
                "content": "Has a dog named Max who is a labrador",
                "attachments": ["A1"],
            }
        ),
    ]

    results = w.add("My dog Max is a labrador", task="t2", strategy=RELEVANCE)

    call = w.llm.calls[-1]
    assert "[ID: 0] Has a dog named Max (attachments: A1)" in call["user"]
    assert "A1: max.png (image/png) - photo max.png" in call["user"]
    assert '"attachments": ["A1"]' in call["system"]  # the answer line asks where each attachment goes
    item = call["schema"]["properties"]["operations"]["items"]
    assert "attachments" in item["required"]
    assert results == [(Event.UPDATE, "Has a dog named Max who is a labrador", [photo])]
    assert w.memories() == {"Has a dog named Max who is a labrador": [photo]}


def test_without_attachments_the_prompt_and_schema_say_nothing_of_them() -> None:
    llm = ScriptedLLM(facts_json("Has a dog named Max"))
    pipeline, _facts, _ = make(llm)
    run(pipeline, "I have a dog named Max", "t1")
    llm.answers += [
        facts_json("Dog Max is a labrador"),
        operations({"operation": "UPDATE", "id": "0", "content": "Has a dog named Max who is a labrador"}),
    ]
    run(pipeline, "My dog Max is a labrador", "t2", strategy=RELEVANCE)
    call = llm.calls[-1]
    assert "Attachments:" not in call["user"] and "attachments" not in call["system"].lower()
    assert "attachments" not in call["schema"]["properties"]["operations"]["items"]["properties"]


BANDS = {"HIGH": (0.7, 0.9), "MODERATE": (0.4, 0.6), "LOW": (0.1, 0.3), "NONE": (0.0, 0.0)}
REASON = re.compile(
    r"^(HIGH|MODERATE|LOW|NONE) relevance \((\d\.\d) = (\d\.\d) memory type \+ (\d\.\d) topic \+ (\d\.\d) semantic\)"
)


def test_every_worked_example_parses_and_its_score_adds_up_to_its_band() -> None:
    """The prompt's examples are what the model imitates: each must be an answer the parser takes,
    with a relevance that is the sum of its three parts and an operation its band allows."""
    prompt = reconcile_system_prompt("relevance")
    blocks = re.findall(r"Potential memories: (\[.*\])\nExisting memories:\n((?:\[ID: .*\n)+)Answer: (.*)\n", prompt)
    assert len(blocks) >= 18
    seen = set()
    for potential, existing_lines, answer in blocks:
        existing = [
            Fact(tenant_id="acme", user_id="alice", text=line.split("] ", 1)[1]) for line in existing_lines.splitlines()
        ]
        facts = [CandidateFact(text=p["content"], importance=p["importance"]) for p in json.loads(potential)]
        decisions = DecisionInterpreter(existing, facts, relevance=True)(json.loads(answer))
        assert len(decisions) == 1, answer
        (op,) = json.loads(answer)["operations"]
        band, total, *parts = REASON.match(op["reasoning"]).groups()  # type: ignore[union-attr]
        assert round(sum(float(p) for p in parts), 1) == float(total) == op["relevance"], op
        low, high = BANDS[band]
        assert low <= op["relevance"] <= high, op
        assert op["operation"] == "NEW" if band in ("LOW", "NONE") else op["operation"] in ("UPDATE", "DELETE"), op
        assert op["importance"] == facts[0].importance, op
        seen.add((band, op["operation"]))
    assert {("LOW", "NEW"), ("MODERATE", "UPDATE"), ("HIGH", "UPDATE"), ("HIGH", "DELETE")} <= seen


def test_a_second_update_turned_new_leaves_the_other_memorys_attachments_where_they_are() -> None:
    w = world()
    park = w.attachment("park.png")
    w.add("Has a dog named Max", task="t1", infer=False)
    w.add("Walks the dog in the park", park, task="t2", infer=False, deduplicate=False)
    w.llm.answers += [
        facts_json("Dog Max is a labrador"),
        lambda _system, user: operations(
            {
                "operation": "UPDATE",
                "id": _short(user, "Has a dog named Max"),
                "content": "Has a dog named Max who is a labrador",
                "attachments": [],
            },
            {
                "operation": "UPDATE",
                "id": _short(user, "Walks the dog in the park"),
                "content": "Walks the dog Max, a labrador, in the park",
                "attachments": ["A1"],
            },
        ),
    ]

    w.add("My dog Max is a labrador", task="t3", strategy=RELEVANCE)

    assert w.memories() == {
        "Has a dog named Max who is a labrador": [],
        "Walks the dog in the park": [park],
        "Walks the dog Max, a labrador, in the park": [],
    }
