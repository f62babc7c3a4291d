"""A weak model's reconciliation plan is checked before it is applied (reconcile/checks.py): each
decision that would lose information or act on nothing is downgraded, with the reason in the task
result; sound decisions pass unchanged. The checks run on the local MiniLM embedder, as in production."""

from __future__ import annotations

import pytest

from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.domain.models import AddRequest, Event, Fact, Message, Scope
from engram.domain.steps import CandidateFact, Decision
from engram.pipeline.ingest import IngestPipeline
from engram.pipeline.llm_extractor import LLMFactExtractor
from engram.reconcile.checks import PlanChecks, clauses
from engram.reconcile.llm import UNUSABLE, LLMReconciler, cover_missing
from engram.state.aspects import AspectReader, first_person
from tests.fakes import MemoryFactStore, MemoryIndex, ScriptedLLM, facts_json, memory_json

SCOPE = Scope(tenant_id="acme", user_id="alice")


@pytest.fixture(scope="module")
def checks() -> PlanChecks:
    embedder = OnnxEmbedder()
    return PlanChecks(embedder, aspects=AspectReader(embedder).single_values)  # as bootstrap builds them


def memories(*texts: str) -> list[Fact]:
    return [Fact(id=f"m{i}", tenant_id="acme", user_id="alice", text=t) for i, t in enumerate(texts)]


def facts(*texts: str) -> list[CandidateFact]:
    return [CandidateFact(text=t, by_llm=True) for t in texts]


def update(memory: str, text: str) -> Decision:
    return Decision(event=Event.UPDATE, memory_id=memory, text=text, fact_index=0)


# --- downgrades ----------------------------------------------------------------------------------------


def test_an_update_that_drops_what_the_old_memory_held_becomes_a_new_memory_beside_it(checks: PlanChecks) -> None:
    d, old = checks(
        [update("m0", "User lives in Seattle")],
        facts("User moved to Seattle"),
        memories("User lives in Dallas and works at Google"),
    )
    assert (d.event, d.memory_id, d.text) == (Event.ADD, None, "User lives in Seattle")
    assert d.note is not None and "would drop" in d.note and "google" in d.note
    # ... and the old home, now beside the new one, is superseded: the rest of the memory stays
    assert (old.event, old.memory_id, old.text) == (Event.UPDATE, "m0", "User works at Google")
    assert old.note is not None and "superseded" in old.note


def test_a_delete_that_nothing_contradicts_keeps_the_memory(checks: PlanChecks) -> None:
    (d,) = checks(
        [Decision(event=Event.DELETE, memory_id="m0", text="User likes hiking")],
        facts("User likes swimming"),
        memories("User likes hiking"),
    )
    assert (d.event, d.memory_id) == (Event.NONE, "m0")
    assert d.note is not None and "no new fact contradicts it" in d.note


def test_an_update_of_a_memory_the_new_facts_do_not_concern_is_not_applied(checks: PlanChecks) -> None:
    kept, added = checks(
        [update("m0", "User works as a nurse and has a cat named Tom")],
        facts("User has a cat named Tom"),
        memories("User works as a nurse"),
    )
    assert (kept.event, kept.memory_id) == (Event.NONE, "m0")
    assert kept.note is not None and "no new fact concerns it" in kept.note
    assert (added.event, added.text, added.fact_index) == (Event.ADD, "User has a cat named Tom", 0)
    assert added.note == kept.note


def test_an_add_that_a_current_memory_already_holds_is_a_none(checks: PlanChecks) -> None:
    (d,) = checks(
        [Decision(event=Event.ADD, text="User is a nurse by profession", fact_index=0)],
        facts("User is a nurse by profession"),
        memories("User works as a nurse"),
    )
    assert (d.event, d.memory_id) == (Event.NONE, "m0")
    assert d.note is not None and "already holds it" in d.note


def test_an_update_that_changes_nothing_is_a_none_without_a_note(checks: PlanChecks) -> None:
    (d,) = checks([update("m0", "User likes jazz.")], facts("User likes jazz"), memories("User likes jazz"))
    assert (d.event, d.memory_id, d.note) == (Event.NONE, "m0", None)


# --- sound decisions pass ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "fact", "new"),
    [
        ("User lives in Hamburg", "User moved to Munich", "User lives in Munich"),
        ("User works at Google", "User started a new job at Microsoft", "User works at Microsoft"),
        (
            "User lives in Dallas and works at Google",
            "User moved to Seattle",
            "User lives in Seattle and works at Google",
        ),
        ("User has a dog named Max", "User's dog Max is a labrador", "User has a dog named Max who is a labrador"),
        ("User likes fish", "User only likes fish when it's fried", "User only likes fish when it's fried"),
    ],
)
def test_a_sound_update_passes(checks: PlanChecks, old: str, fact: str, new: str) -> None:
    (d,) = checks([update("m0", new)], facts(fact), memories(old))
    assert (d.event, d.memory_id, d.text, d.note) == (Event.UPDATE, "m0", new, None)


@pytest.mark.parametrize(
    ("old", "fact"),
    [
        ("User likes coffee", "User doesn't like coffee anymore"),
        ("User lives in Hamburg", "User moved to Munich"),
        ("Remind user to buy milk", "Delete the reminder about buying milk"),
        ("User works at Google", "User left Google last month for Microsoft"),
        ("User works as a teacher", "User quit teaching and now works as a nurse"),
    ],
)
def test_a_delete_that_a_new_fact_contradicts_passes(checks: PlanChecks, old: str, fact: str) -> None:
    (d,) = checks([Decision(event=Event.DELETE, memory_id="m0", text=old)], facts(fact), memories(old))
    assert (d.event, d.note) == (Event.DELETE, None)


def test_a_new_fact_beside_an_unrelated_memory_is_added(checks: PlanChecks) -> None:
    add = Decision(event=Event.ADD, text="User likes sushi", fact_index=0)
    assert checks([add], facts("User likes sushi"), memories("User lives in Munich")) == [add]


def test_clauses_split_joined_statements() -> None:
    assert clauses("User lives in Paris with his wife Claire, and works at Airbus") == [
        "User lives in Paris",
        "his wife Claire",
        "works at Airbus",
    ]


# --- through the pipeline: the task result says why ----------------------------------------------------


def pipeline_with(checks: PlanChecks, memory: str) -> tuple[IngestPipeline, ScriptedLLM, MemoryFactStore]:
    """A pipeline whose user already has the fact `memory` (read by the model, not a message kept as
    said); the scripted model answers what the test adds."""
    llm, store = ScriptedLLM(), MemoryFactStore()
    embedder = checks.embedder
    assert embedder is not None
    pipeline = IngestPipeline(store, MemoryIndex(), embedder, LLMFactExtractor(llm), LLMReconciler(llm, checks))
    llm.answers.append(facts_json(memory))
    pipeline.run(SCOPE, AddRequest(messages=[Message(role="user", content=memory)], user_id="alice"), "seed")
    llm.calls.clear()
    return pipeline, llm, store


def results(pipeline: IngestPipeline, text: str) -> list[tuple[Event, str, str | None]]:
    request = AddRequest(messages=[Message(role="user", content=text)], user_id="alice")
    return [(r.event, r.memory, r.note) for r in pipeline.run(SCOPE, request, "t2").results]


def current(store: MemoryFactStore) -> set[str]:
    return {f.text for f in store.list_current("acme", "alice").items}


def test_a_lossy_update_is_named_in_the_task_result_and_the_old_memory_stays(checks: PlanChecks) -> None:
    pipeline, llm, store = pipeline_with(checks, "Lives in Dallas and works at Google")
    lossy = memory_json({"id": "0", "text": "Lives in Seattle", "event": "UPDATE", "old_memory": None})
    llm.answers += [facts_json("Moved to Seattle"), lossy, lossy]  # asked again once: the same answer

    result, kept = results(pipeline, "I moved to Seattle.")

    assert result[:2] == (Event.ADD, "Lives in Seattle")
    assert result[2] is not None and "plan check" in result[2] and "would drop" in result[2]
    assert (Event.UPDATE, "Works at Google") == kept[:2] and kept[2] is not None and "superseded" in kept[2]
    assert current(store) == {"Works at Google", "Lives in Seattle"}


def test_a_delete_nothing_contradicts_is_named_in_the_task_result_and_the_memory_stays(checks: PlanChecks) -> None:
    pipeline, llm, store = pipeline_with(checks, "Likes hiking")
    llm.answers += [
        facts_json("Likes swimming"),
        memory_json(
            {"id": "0", "text": "Likes hiking", "event": "DELETE", "old_memory": None},
            {"id": "1", "text": "Likes swimming", "event": "ADD", "old_memory": None},
        ),
    ]

    found = results(pipeline, "I like swimming.")

    assert (Event.ADD, "Likes swimming", None) in found
    (kept,) = [r for r in found if r[0] is Event.NONE]
    assert kept[1] == "Likes hiking" and kept[2] is not None and "no new fact contradicts it" in kept[2]
    assert current(store) == {"Likes hiking", "Likes swimming"}


def test_an_unusable_reconciliation_answer_adds_the_facts_with_a_note(checks: PlanChecks) -> None:
    pipeline, llm, store = pipeline_with(checks, "Likes hiking")
    # a weak model at temperature 0 answers the same each time: retrying the task would not help
    llm.answers += [facts_json("Likes swimming"), "{", "{", "{"]

    (result,) = results(pipeline, "I like swimming.")

    assert result[:2] == (Event.ADD, "Likes swimming")
    assert result[2] is not None and result[2].startswith(UNUSABLE) and "after 3 attempts" in result[2]
    assert current(store) == {"Likes hiking", "Likes swimming"}
    assert len(llm.calls) == 4  # extraction, then three reconciliation attempts


def test_a_none_on_a_memory_that_lacks_part_of_the_new_fact_lets_the_fact_be_added(checks: PlanChecks) -> None:
    memory = memories("User has a dog named Max")
    new = facts("User's dog Max is a labrador")
    plan = cover_missing(
        checks([Decision(event=Event.NONE, memory_id="m0", text="User has a dog named Max")], new, memory), new
    )

    assert [(d.event, d.text) for d in plan if d.event is Event.ADD] == [(Event.ADD, "User's dog Max is a labrador")]


# --- a move or a job change the model left half done --------------------------------------------------


MOVE = "User moved to Munich"


@pytest.mark.parametrize(
    "plan",
    [
        [
            update("m0", "User lives in Hamburg"),
            Decision(event=Event.ADD, text=MOVE, fact_index=0),
        ],  # UPDATE, same text
        [Decision(event=Event.ADD, text="User lives in Hamburg"), Decision(event=Event.ADD, text=MOVE, fact_index=0)],
        [Decision(event=Event.ADD, text=MOVE, fact_index=0)],
    ],
    ids=["update-unchanged", "repeated-add", "add-only"],
)
def test_a_new_home_added_beside_the_old_one_supersedes_it(checks: PlanChecks, plan: list[Decision]) -> None:
    out = checks(plan, facts(MOVE), memories("User lives in Hamburg", "User likes cricket"))

    closed = [d for d in out if d.memory_id == "m0"]
    assert [(d.event, d.text) for d in closed] == [(Event.DELETE, "User lives in Hamburg")]
    assert closed[0].note is not None and "superseded" in closed[0].note and "Munich" in closed[0].note
    assert [d.text for d in out if d.event is Event.ADD] == [MOVE]
    assert all(d.memory_id != "m1" for d in out)  # the cricket memory is not touched


@pytest.mark.parametrize(
    ("old", "fact", "kept"),
    [
        ("User lives in Hamburg and works at Airbus", "User moved to Berlin", "User works at Airbus"),
        ("User works at Google and lives in Zurich", "User now works at Apple", "User lives in Zurich"),
        ("User works as a teacher in Leeds", "User became a headteacher", "User works as a headteacher in Leeds"),
        ("User is a software developer at SAP", "User now works at Adobe as a software developer", None),
    ],
)
def test_a_superseded_memory_keeps_what_else_it_says(checks: PlanChecks, old: str, fact: str, kept: str | None) -> None:
    out = checks([Decision(event=Event.ADD, text=fact, fact_index=0)], facts(fact), memories(old))

    (changed,) = [d for d in out if d.memory_id == "m0"]
    assert (changed.event, changed.text) == ((Event.UPDATE, kept) if kept else (Event.DELETE, old))
    assert changed.note is not None and "superseded" in changed.note


@pytest.mark.parametrize(
    ("old", "fact"),
    [
        ("User's sister lives in Hamburg", "User lives in Munich"),  # someone else's home
        ("User lives in Hamburg", "User is visiting Munich next week"),  # a trip is not a move
        ("User lives in Munich", "User moved to Munich"),  # the same value
        ("User has a dog named Max", "User has a cat named Tom"),  # pets gather: a second is no replacement
    ],
)
def test_no_supersession_where_no_single_value_changes(checks: PlanChecks, old: str, fact: str) -> None:
    out = checks([Decision(event=Event.ADD, text=fact, fact_index=0)], facts(fact), memories(old))
    assert all(d.event not in (Event.DELETE, Event.UPDATE) for d in out)


@pytest.mark.parametrize(
    ("old", "fact", "kept"),
    [
        ("User likes tea and coffee", "User doesn't drink coffee anymore", "User likes tea"),
        ("User plays football and basketball", "User stopped playing basketball", "User plays football"),
    ],
)
def test_a_delete_of_a_memory_the_new_fact_contradicts_in_part_keeps_the_rest(
    checks: PlanChecks, old: str, fact: str, kept: str
) -> None:
    (d,) = checks([Decision(event=Event.DELETE, memory_id="m0", text=old)], facts(fact), memories(old))
    assert (d.event, d.memory_id, d.text) == (Event.UPDATE, "m0", kept)
    assert d.note is not None and "would drop" in d.note


def test_a_partial_delete_that_cannot_be_cut_cleanly_is_not_applied(checks: PlanChecks) -> None:
    old = "User likes coffee and tea"
    (d,) = checks([Decision(event=Event.DELETE, memory_id="m0", text=old)], facts("User quit coffee"), memories(old))
    assert (d.event, d.memory_id) == (Event.NONE, "m0")
    assert d.note is not None and "not applied" in d.note and "tea" in d.note


@pytest.mark.parametrize(
    ("memory", "said"),
    [
        ("User lives in Hamburg", "I live in Hamburg"),
        ("User now works at Apple", "I now work at Apple"),
        ("User is a nurse", "I'm a nurse"),
        ("User quit teaching and now is a nurse", "I quit teaching and I now am a nurse"),
        ("User has a dog and is vegan", "I have a dog and I'm vegan"),
        ("User's wife is Anna", "My wife is Anna"),
        ("Lives in Dallas and works at Google", "I live in Dallas and I work at Google"),
        ("Tennis on Sundays", "Tennis on Sundays"),
    ],
)
def test_memories_are_read_for_aspects_in_the_first_person(memory: str, said: str) -> None:
    assert first_person(memory) == said


def test_a_half_done_move_is_finished_and_named_in_the_task_result(checks: PlanChecks) -> None:
    pipeline, llm, store = pipeline_with(checks, "Lives in Hamburg")
    llm.answers += [
        facts_json("Moved to Munich"),
        memory_json(
            {"id": "0", "text": "Lives in Hamburg", "event": "UPDATE", "old_memory": None},
            {"id": "1", "text": "Moved to Munich", "event": "ADD", "old_memory": None},
        ),
    ]

    found = results(pipeline, "I moved to Munich.")

    (closed,) = [r for r in found if r[0] is Event.DELETE]
    assert closed[1] == "Lives in Hamburg" and closed[2] is not None and "superseded" in closed[2]
    assert current(store) == {"Moved to Munich"}
