"""On the LLM path the model states the statements of each fact in its one call (subject, attribute, value,
polarity, one value at a time or not); a malformed statement is repaired or dropped, never failing the add;
the stored memory carries the model's statements, and a later move is resolved from them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

from engram.domain.models import AddRequest, Event, ExtractionPrompt, Message, Scope
from engram.domain.statements import Statement
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor, interpret_facts, stamped
from engram.pipeline.one_call import OneCall, schema, system_prompt
from engram.reconcile.checks import PlanChecks
from engram.reconcile.llm import LLMReconciler
from engram.reconcile.prompts import EXTRACTION_SCHEMA, extraction_system_prompt
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex, ScriptedLLM

SCOPE = Scope(tenant_id="acme", user_id="alice")
HOME = {"subject": "user", "attribute": "home", "value": "York", "polarity": "asserted", "single": True}


def fact_item(text: str, *statements: Any) -> dict[str, Any]:
    return {
        "text": text,
        "fact_key": None,
        "fact_value": None,
        "memory_bank": "Personal",
        "importance": 0.5,
        "statements": list(statements),
    }


def test_the_models_statements_are_read_with_each_fact() -> None:
    (found,) = interpret_facts({"facts": [fact_item("Moved to York", HOME)]})
    assert found.statements == [Statement(subject="user", attribute="home", value="York", single=True)]


def test_malformed_statements_are_repaired_or_dropped_and_the_fact_stays() -> None:
    answer = {
        "facts": [
            fact_item(
                "Moved to York",
                {**HOME, "subject": "  ", "attribute": " Home ", "value": " York "},  # repaired: the user, trimmed
                {**HOME, "polarity": "maybe"},  # an unknown polarity: dropped (a wrong statement is worse than none)
                {**HOME, "single": "yes"},  # not a boolean: one value or many is not known, so many
            ),
            fact_item(
                "Works at Airbus",
                {**HOME, "value": ""},
                {**HOME, "attribute": "x" * 500},
                {**HOME, "subject": "y" * 500},
            ),
            {"text": "Has a cat", "memory_bank": "Personal", "importance": 0.5, "statements": "home=York"},
            {"text": "Likes jazz", "memory_bank": "Interests", "importance": 0.5},  # none at all
            fact_item("Lives in York", *[HOME] * 2, *[{**HOME, "value": f"York {i}"} for i in range(50)]),
        ]
    }
    york, airbus, cat, jazz, runaway = interpret_facts(answer)
    assert [(s.subject, s.attribute, s.value, s.single) for s in york.statements] == [
        ("user", "home", "York", True),
        ("user", "home", "York", False),
    ]
    assert airbus.statements == cat.statements == jazz.statements == []
    assert [s.value for s in runaway.statements] == ["York", "York 0"]  # the first three, a repeat once: cut, not kept
    assert [f.text for f in (york, airbus, cat, jazz)] == [
        "Moved to York",
        "Works at Airbus",
        "Has a cat",
        "Likes jazz",
    ]


def test_the_schema_asks_for_statements_and_stays_strict() -> None:
    for shape in (EXTRACTION_SCHEMA, schema(False), schema(True)):
        item = shape["properties"]["facts"]["items"]
        assert "statements" in item["required"]
        statement = item["properties"]["statements"]["items"]
        assert statement["additionalProperties"] is False
        assert (
            set(statement["required"])
            == set(statement["properties"])
            == {"subject", "attribute", "value", "polarity", "single"}
        )
        assert item["properties"]["statements"]["maxItems"] == 3
        assert statement["properties"]["polarity"]["enum"] == ["asserted", "ended", "denied", "hedged", "past"]


def test_every_llm_prompt_asks_for_statements() -> None:
    today = datetime(2026, 11, 28, tzinfo=UTC)
    for prompt in (
        system_prompt(ExtractionPrompt.USER, False, today),
        system_prompt(ExtractionPrompt.AGENT, True, today),
        extraction_system_prompt(ExtractionPrompt.USER, today),
        extraction_system_prompt(ExtractionPrompt.AGENT, today),
    ):
        assert '"statements": [{"subject"' in prompt and "hedged" in prompt


def one_call_answer(text: str, statement: dict[str, Any], memory: list[dict[str, Any]]) -> str:
    return json.dumps({"facts": [fact_item(text, statement)], "memory": [{"old_memory": None, **m} for m in memory]})


def one_call_pipeline(llm: ScriptedLLM, store: MemoryFactStore) -> IngestPipeline:
    """The ingest pipeline with the one call and its plan checks, as the LLM path wires it."""
    checks = PlanChecks(HashEmbedder())
    return IngestPipeline(
        store,
        MemoryIndex(),
        HashEmbedder(),
        LLMFactExtractor(llm),
        LLMReconciler(llm, checks),
        one_call=OneCall(llm, checks=checks),
    )


def test_a_move_told_in_two_adds_is_resolved_from_the_models_statements() -> None:
    llm = ScriptedLLM(
        one_call_answer(
            "Lives in Leeds", {**HOME, "value": "Leeds"}, [{"id": "0", "text": "Lives in Leeds", "event": "ADD"}]
        ),
        # the model only adds the new home and keeps the old one: the statements settle it
        one_call_answer(
            "Moved to York",
            HOME,
            [
                {"id": "0", "text": "Lives in Leeds", "event": "NONE"},
                {"id": "1", "text": "Moved to York", "event": "ADD"},
            ],
        ),
    )
    store = MemoryFactStore()
    pipeline = one_call_pipeline(llm, store)
    for i, (said, when) in enumerate(
        (
            ("I live in Leeds.", datetime(2026, 1, 5, tzinfo=UTC)),
            ("We moved to York last week.", datetime(2026, 6, 5, tzinfo=UTC)),
        )
    ):
        message = Message(role="user", content=said, created_at=when)
        outcome = pipeline.run(SCOPE, AddRequest(messages=[message], user_id="alice"), f"t{i}")
    assert Event.DELETE in {r.event for r in outcome.results}
    current = store.list_current("acme", "alice").items
    assert [f.text for f in current] == ["Moved to York"]
    (york,) = current
    assert [(s.attribute, s.value, s.polarity, s.single) for s in york.statements] == [
        ("home", "York", "asserted", True)
    ]
    assert york.statements[0].event_time == datetime(2026, 6, 5, tzinfo=UTC)
    (leeds,) = [f for f in store.current.values() if f.text == "Lives in Leeds"]
    assert leeds.valid_to == datetime(2026, 6, 5, tzinfo=UTC)  # outdated when the move was said, kept as history
    assert [(s.attribute, s.value) for s in leeds.statements] == [("home", "Leeds")]


def test_someone_elses_change_the_model_gives_the_person_outdates_nothing_of_theirs() -> None:
    """'my brother just became a pilot' read by a model as the person's job (the 1.5B's misses in the memory-state
    bench's model mode): the words give the value to the brother, and other people's attributes outdate nothing,
    whatever the model's plan chose."""
    job = {**HOME, "attribute": "job", "value": "pharmacist"}
    llm = ScriptedLLM(
        one_call_answer("Works as a pharmacist", job, [{"id": "0", "text": "Works as a pharmacist", "event": "ADD"}]),
        one_call_answer(
            "Works as a pilot with Ryanair",
            {**job, "value": "pilot"},
            [{"id": "0", "text": "Works as a pilot with Ryanair", "event": "UPDATE"}],
        ),
    )
    store = MemoryFactStore()
    pipeline = one_call_pipeline(llm, store)
    for i, said in enumerate(("I'm a pharmacist at Boots.", "my brother just became a pilot with Ryanair, so jealous")):
        message = Message(role="user", content=said, created_at=datetime(2026, 1 + 5 * i, 5, tzinfo=UTC))
        pipeline.run(SCOPE, AddRequest(messages=[message], user_id="alice"), f"t{i}")
    current = {f.text: f for f in store.list_current("acme", "alice").items}
    assert set(current) == {"Works as a pharmacist", "Works as a pilot with Ryanair"}
    assert [(s.subject, s.value) for s in current["Works as a pilot with Ryanair"].statements] == [
        ("my brother", "pilot")
    ]
    assert [(s.subject, s.value, s.outdated_by) for s in current["Works as a pharmacist"].statements] == [
        ("user", "pharmacist", None)
    ]


def test_the_words_own_a_statement_the_model_gave_the_person_however_it_names_them() -> None:
    said = [Message(role="user", content="my brother just became a pilot with Ryanair, so jealous")]
    for subject in ("user", "I", "me", ""):
        (fact,) = interpret_facts(
            {"facts": [fact_item("Works as a pilot", {**HOME, "subject": subject, "value": "pilot"})]}
        )
        (owned,) = stamped([fact], said)
        assert [s.subject for s in owned.statements] == ["my brother"], subject
    (mine,) = interpret_facts({"facts": [fact_item("Moved to York", {**HOME, "subject": "I"})]})
    (kept,) = stamped([mine], [Message(role="user", content="I moved to York")])
    assert [s.subject for s in kept.statements] == ["I"]  # the person's own words: left as the model gave it


def test_the_answers_shape_copied_as_an_answer_stores_no_placeholder() -> None:
    """A small model held to one line copies the shape its prompt shows ("..." for every value; SmolLM2 did):
    that is no answer. It is asked again with the reason; nothing of it is stored as a memory or a statement."""
    placeholder = {"subject": "user", "attribute": "...", "value": "...", "polarity": "asserted", "single": True}
    llm = ScriptedLLM(
        one_call_answer("...", placeholder, [{"id": "0", "text": "...", "event": "ADD"}]),
        one_call_answer(
            "Lives in Leeds",
            {**HOME, "value": "Leeds"},
            [{"id": "0", "text": "Lives in Leeds", "event": "ADD"}, {"id": "1", "text": " - ", "event": "ADD"}],
        ),
        one_call_answer(
            "Lives in Leeds", {**HOME, "value": "Leeds"}, [{"id": "0", "text": "Lives in Leeds", "event": "ADD"}]
        ),
    )
    store = MemoryFactStore()
    message = Message(role="user", content="I live in Leeds.", created_at=datetime(2026, 1, 5, tzinfo=UTC))

    outcome = one_call_pipeline(llm, store).run(SCOPE, AddRequest(messages=[message], user_id="alice"), "t0")

    # each retry names what was wrong: the fact "...", then the memory " - " (no text either)
    assert "a placeholder is not a fact" in llm.calls[1]["user"] and "ADD without text" in llm.calls[2]["user"]
    stored = store.list_current("acme", "alice").items
    assert [f.text for f in stored] == ["Lives in Leeds"], outcome.results
    assert [(s.attribute, s.value) for s in stored[0].statements] == [("home", "Leeds")]
    (fact,) = interpret_facts({"facts": [fact_item("Likes jazz", HOME, placeholder, {**HOME, "value": "?!"})]})
    assert [s.value for s in fact.statements] == ["York"]  # a placeholder statement is dropped, the fact kept
