"""A model's UPDATE or DELETE that its statements show is a change of a one-at-a-time attribute is resolved
from the statements, by event time (reconcile/statement_change.py), not taken as the model chose it: the
newer value outdates the older, an older value is history, a hedge or the past changes nothing, and nothing
else the memory says is lost. Where either side has no statements, the plan checks decide as before."""

from __future__ import annotations

from datetime import UTC, datetime

from engram.domain.models import Event, Fact
from engram.domain.statements import Statement
from engram.domain.steps import CandidateFact, Decision
from engram.reconcile.checks import NOTE, PlanChecks
from engram.reconcile.statement_change import change

MAY = datetime(2026, 5, 1, tzinfo=UTC)
JUNE = datetime(2026, 6, 1, tzinfo=UTC)


def said(attribute: str, value: str, polarity: str = "asserted", single: bool = True, **more: object) -> Statement:
    return Statement.model_validate(
        {"attribute": attribute, "value": value, "polarity": polarity, "single": single, **more}
    )


def memory(text: str, *statements: Statement, at: datetime = MAY, **more: object) -> Fact:
    return Fact(
        id="m0", tenant_id="acme", user_id="alice", text=text, valid_from=at, statements=list(statements), **more
    )


def fact(text: str, *statements: Statement, at: datetime | None = JUNE) -> CandidateFact:
    stamped = [s.model_copy(update={"event_time": s.event_time or at}) for s in statements]
    return CandidateFact(text=text, by_llm=True, statements=stamped)


# --- the resolution of two memories' statements -------------------------------------------------------------


def test_a_newer_value_of_a_single_attribute_outdates_the_older() -> None:
    found = change([said("home", "York", event_time=JUNE)], [said("home", "Leeds")], MAY)
    assert found is not None and not found.older
    assert [s.value for s in found.outdated] == ["Leeds"]


def test_an_older_value_is_history_and_outdates_nothing() -> None:
    found = change([said("home", "Hull", event_time=datetime(2025, 1, 1, tzinfo=UTC))], [said("home", "Leeds")], MAY)
    assert found is not None and found.older and not found.outdated


def test_an_ending_closes_the_value_it_ends_even_on_a_many_valued_attribute() -> None:
    found = change([said("bike", "Brompton", "ended", single=False)], [said("bike", "Brompton", single=False)], MAY)
    assert found is not None and [s.value for s in found.outdated] == ["Brompton"]


def test_hedges_the_past_and_other_subjects_change_nothing() -> None:
    old = [said("home", "Leeds")]
    for polarity in ("hedged", "past"):
        kept = change([said("home", "York", polarity)], old, MAY)
        assert kept is not None and not kept.outdated and not kept.older
    # someone else's value of the person's attribute keeps the person's, settled here, not left to the model's plan
    theirs = change([said("home", "York", subject="my sister Ines")], old, MAY)
    assert theirs is not None and not theirs.outdated and not theirs.older
    assert change([said("home", "York", subject="we")], old, MAY) is not None  # "we" moved: the person too
    assert change([said("job", "pilot", subject="my brother")], old, MAY) is None  # another attribute: no bearing


def test_many_valued_attributes_accumulate_and_the_same_value_is_no_change() -> None:
    assert change([said("language", "Spanish", single=False)], [said("language", "French", single=False)], MAY) is None
    assert change([said("home", "Leeds")], [said("home", "leeds")], MAY) is None
    assert change([said("home", "York")], [], MAY) is None  # no statements: nothing to resolve


def test_the_attribute_and_subject_match_whatever_their_case_and_spacing() -> None:
    found = change([said(" Home ", "York", subject="User")], [said("home", "Leeds")], MAY)
    assert found is not None and [s.value for s in found.outdated] == ["Leeds"]


# --- the plan ------------------------------------------------------------------------------------------------

checks = PlanChecks()  # no embedder: the checks' word overlap, enough where statements decide


def test_a_models_update_of_a_changed_home_closes_the_old_memory_and_adds_the_new_fact() -> None:
    plan = [Decision(event=Event.UPDATE, memory_id="m0", text="Lives in York", fact_index=0)]
    out = checks(plan, [fact("Moved to York", said("home", "York"))], [memory("Lives in Leeds", said("home", "Leeds"))])
    assert [(d.event, d.memory_id, d.text, d.fact_index) for d in out] == [
        (Event.DELETE, "m0", "Lives in Leeds", None),
        (Event.ADD, None, "Moved to York", 0),
    ]
    assert out[0].note is not None and "home" in out[0].note and "York" in out[0].note


def test_a_changed_memory_keeps_what_else_it_says() -> None:
    old = memory("Lives in Leeds and works as a nurse", said("home", "Leeds"), said("job", "nurse"))
    plan = [Decision(event=Event.DELETE, memory_id="m0", text=old.text)]
    out = checks(plan, [fact("Moved to York", said("home", "York"))], [old])
    assert [(d.event, d.memory_id, d.text) for d in out] == [
        (Event.UPDATE, "m0", "Works as a nurse"),
        (Event.ADD, None, "Moved to York"),
    ]


def test_a_memory_whose_text_does_not_name_the_old_value_stays_and_the_fact_is_added() -> None:
    old = memory("Has a flat near the station and works as a nurse", said("home", "Leeds"))
    plan = [Decision(event=Event.DELETE, memory_id="m0", text=old.text)]
    out = checks(plan, [fact("Moved to York", said("home", "York"))], [old])
    assert [(d.event, d.memory_id) for d in out] == [(Event.NONE, "m0"), (Event.ADD, None)]
    assert out[0].note is not None and out[0].note.startswith(NOTE)


def test_an_add_beside_the_old_value_outdates_it() -> None:
    plan = [
        Decision(event=Event.NONE, memory_id="m0", text="Lives in Leeds"),
        Decision(event=Event.ADD, text="Moved to York", fact_index=0),
    ]
    out = checks(plan, [fact("Moved to York", said("home", "York"))], [memory("Lives in Leeds", said("home", "Leeds"))])
    assert {(d.event, d.memory_id) for d in out} == {(Event.DELETE, "m0"), (Event.ADD, None)}


def test_an_older_value_becomes_history_of_the_memory_not_its_replacement() -> None:
    plan = [Decision(event=Event.UPDATE, memory_id="m0", text="Lives in Hull", fact_index=0)]
    then = datetime(2025, 1, 1, tzinfo=UTC)
    out = checks(
        plan, [fact("Lived in Hull", said("home", "Hull"), at=then)], [memory("Lives in Leeds", said("home", "Leeds"))]
    )
    # an UPDATE said before the memory's time is stored as its history by the applier (pipeline/apply.py)
    assert [(d.event, d.memory_id, d.text) for d in out] == [(Event.UPDATE, "m0", "Lived in Hull")]
    assert out[0].note is not None and "before" in out[0].note


def test_a_hedge_does_not_delete_the_current_value() -> None:
    plan = [Decision(event=Event.DELETE, memory_id="m0", text="Lives in Leeds")]
    out = checks(
        plan,
        [fact("Might move to York", said("home", "York", "hedged"))],
        [memory("Lives in Leeds", said("home", "Leeds"))],
    )
    assert [(d.event, d.memory_id, d.text) for d in out] == [
        (Event.NONE, "m0", ""),
        (Event.ADD, None, "Might move to York"),  # the hedge is kept, as what was said
    ]


def test_where_the_memory_states_nothing_the_plan_checks_decide_as_before() -> None:
    plan = [Decision(event=Event.UPDATE, memory_id="m0", text="Lives in York", fact_index=0)]
    stated = checks(
        [d.model_copy() for d in plan], [fact("Moved to York", said("home", "York"))], [memory("Lives in Leeds")]
    )
    plain = checks(plan, [CandidateFact(text="Moved to York", by_llm=True)], [memory("Lives in Leeds")])
    assert [(d.event, d.memory_id, d.text, d.note) for d in stated] == [
        (d.event, d.memory_id, d.text, d.note) for d in plain
    ]
    assert not any(d.note and "statements" in d.note for d in stated)


def test_a_message_kept_as_said_is_left_to_the_plan_checks_and_the_applier() -> None:
    # a kept message is never closed: the applier stores the new statement beside it and marks it outdated
    old = memory("I live in Leeds", said("home", "Leeds"), source={"task_id": "t", "via": "as_given"})
    plan = [Decision(event=Event.DELETE, memory_id="m0", text=old.text)]
    out = checks([d.model_copy() for d in plan], [fact("Moved to York", said("home", "York"))], [old])
    plain = checks(
        plan, [CandidateFact(text="Moved to York", by_llm=True)], [old.model_copy(update={"statements": []})]
    )
    assert [(d.event, d.memory_id, d.text) for d in out] == [(d.event, d.memory_id, d.text) for d in plain]


# --- attributes compared by meaning, as the offline resolver compares them ------------------------------------


def test_an_attribute_named_in_other_words_is_the_same_attribute_by_meaning() -> None:
    """A model names the attribute as the person did ("mobile"); the memory's says "phone": one attribute, as
    state/attributes.py reads it, so the newer value outdates the older."""
    from engram.adapters.onnx.embedder import OnnxEmbedder
    from engram.state.attributes import AttributeMeaning

    meaning = AttributeMeaning(OnnxEmbedder())
    new, old = [said("mobile", "Pixel 9", event_time=JUNE)], [said("phone", "iPhone 12")]
    assert change(new, old, MAY) is None  # by their words alone, two attributes
    found = change(new, old, MAY, meaning.one)
    assert found is not None and [s.value for s in found.outdated] == ["iPhone 12"]
    # another attribute stays apart, and a catalogue aspect is never another
    assert change([said("laptop", "MacBook Air", event_time=JUNE)], old, MAY, meaning.one) is None
    assert change([said("employer", "Acme", event_time=JUNE)], [said("home", "Leeds")], MAY, meaning.one) is None


def test_someone_elses_new_job_does_not_replace_the_persons() -> None:
    plan = [Decision(event=Event.UPDATE, memory_id="m0", text="Works as a pilot", fact_index=0)]
    out = checks(
        plan,
        [fact("Works as a pilot with Ryanair", said("job", "pilot", subject="my brother"))],
        [memory("Works as a pharmacist", said("job", "pharmacist"))],
    )
    assert [(d.event, d.memory_id, d.text) for d in out] == [
        (Event.NONE, "m0", ""),
        (Event.ADD, None, "Works as a pilot with Ryanair"),
    ]
    assert out[0].note is not None and "my brother's job pilot" in out[0].note
