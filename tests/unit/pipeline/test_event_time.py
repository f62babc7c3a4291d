"""Memories know when things were said: event time on every memory, relative dates against it, and
history told in any order ending in the same current state."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from engram.domain.models import AddRequest, Event, Fact, Message, Scope
from engram.pipeline.ingest import IngestPipeline
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from engram.text.transcript import parse_messages
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex

SCOPE = Scope(tenant_id="local", user_id="alice")


def day(year: int, month: int, d: int, hour: int = 12) -> datetime:
    return datetime(year, month, d, hour, tzinfo=UTC)


def pipeline() -> tuple[IngestPipeline, MemoryFactStore]:
    facts = MemoryFactStore()
    return (
        IngestPipeline(facts, MemoryIndex(), HashEmbedder(), OfflineExtractor(), KeyReconciler(), keep_episodes=True),
        facts,
    )


def say(p: IngestPipeline, text: str, at: datetime, task: str) -> list[tuple[Event, str, str | None]]:
    request = AddRequest(messages=[Message(role="user", content=text, created_at=at)], user_id="alice")
    return [(r.event, r.memory, r.note) for r in p.run(SCOPE, request, task).results]


def current(facts: MemoryFactStore) -> list[Fact]:
    return facts.list_current("local", "alice").items


def location(facts: MemoryFactStore) -> Fact:
    return next(f for f in current(facts) if f.fact_key == "location")


def test_a_memory_is_valid_from_when_it_was_said_and_recorded_when_it_was_stored() -> None:
    p, facts = pipeline()
    before = datetime.now(UTC)
    say(p, "I live in Hamburg.", day(2023, 5, 8), "t1")
    fact = location(facts)
    assert fact.valid_from == day(2023, 5, 8)
    assert fact.created_at >= before  # the other clock: when Engram recorded it


def test_relative_dates_resolve_against_the_day_the_message_was_said() -> None:
    p, facts = pipeline()
    say(p, "I went to a pottery class yesterday", day(2023, 5, 8), "t1")
    say(p, "I visited my grandma last Friday", day(2023, 5, 8), "t2")
    texts = {f.text for f in current(facts)}
    assert "Went to a pottery class on 7 May 2023" in texts
    assert "Visited their grandma on 5 May 2023" in texts


def test_a_statement_said_before_the_current_fact_is_kept_as_history_not_as_news() -> None:
    p, facts = pipeline()
    say(p, "I live in Munich.", day(2024, 3, 1), "t1")
    results = say(p, "I live in Hamburg.", day(2023, 5, 8), "t2")
    assert location(facts).fact_value == "Munich"
    assert [(e, m) for e, m, _ in results] == [(Event.ADD, "Lives in Hamburg")]
    assert "kept as history" in (results[0][2] or "")
    # As of mid-2023 the user lived in Hamburg: `as_of` reads when things held, not when they were recorded.
    then = facts.list_as_of("local", "alice", day(2023, 9, 1)).items
    assert [f.fact_value for f in then if f.fact_key == "location"] == ["Hamburg"]
    now = facts.list_as_of("local", "alice", day(2024, 6, 1)).items
    assert [f.fact_value for f in now if f.fact_key == "location"] == ["Munich"]


def test_a_retraction_older_than_the_statement_does_not_retract_it() -> None:
    p, facts = pipeline()
    say(p, "I love pizza", day(2024, 3, 1), "t1")
    results = say(p, "I don't like pizza anymore", day(2023, 1, 1), "t2")
    assert results[0][0] is Event.NONE and "not applied" in (results[0][2] or "")
    assert any("pizza" in f.text.lower() for f in current(facts))


def test_an_update_in_order_closes_the_old_version_when_the_new_statement_was_said() -> None:
    p, facts = pipeline()
    say(p, "I live in Hamburg.", day(2023, 5, 8), "t1")
    say(p, "I moved to Munich.", day(2024, 3, 1), "t2")
    assert location(facts).valid_from == day(2024, 3, 1)
    closed = [f for f in facts.versions if f.fact_key == "location"]
    assert [(f.fact_value, f.valid_to) for f in closed] == [("Hamburg", day(2024, 3, 1))]


CITIES = ["Hamburg", "Munich", "Berlin", "Leipzig", "Cologne", "Bremen"]


@settings(max_examples=40, deadline=None)
@given(st.permutations(range(len(CITIES))), st.lists(st.integers(0, 3), min_size=6, max_size=6))
def test_history_in_any_order_ends_in_the_state_of_the_newest_statement(order: list[int], batches: list[int]) -> None:
    """Each city is said in its own year; they arrive shuffled, some together in one add."""
    p, facts = pipeline()
    said = {i: day(2015 + i, 6, 1) for i in range(len(CITIES))}
    pending = list(order)
    task = 0
    while pending:
        take = max(1, min(len(pending), batches[task % len(batches)]))
        group, pending = pending[:take], pending[take:]
        messages = [Message(role="user", content=f"I live in {CITIES[i]}.", created_at=said[i]) for i in group]
        p.run(SCOPE, AddRequest(messages=messages, user_id="alice"), f"t{task}")
        task += 1
    newest = max(range(len(CITIES)), key=lambda i: said[i])
    assert location(facts).fact_value == CITIES[newest]
    assert location(facts).valid_from == said[newest]
    assert len([f for f in current(facts) if f.fact_key == "location"]) == 1


def test_an_episode_whose_statement_a_later_fact_replaced_says_so() -> None:
    p, facts = pipeline()
    say(p, "I live in Hamburg with my husband Tom and our cat Pixel, and I sing in a choir.", day(2023, 5, 8), "t1")
    episode = next(f for f in current(facts) if f.kind == "episode")
    hamburg = location(facts)
    assert hamburg.episode_id == episode.id and episode.outdated_by == []
    say(p, "We moved to Munich last month", day(2024, 3, 1), "t2")
    marked = next(f for f in current(facts) if f.id == episode.id)
    assert marked.outdated_by == [hamburg.id]
    assert marked.text == episode.text and marked.valid_from == episode.valid_from  # it still holds Tom and Pixel


def test_the_llm_reads_when_each_message_was_said() -> None:
    text = parse_messages(
        [
            Message(role="user", content="I went hiking yesterday", created_at=day(2023, 5, 8, 13), name="Caroline"),
            Message(role="assistant", content="Nice!"),
        ]
    )
    assert text.splitlines() == ["user (Caroline, 2023-05-08 13:00 UTC): I went hiking yesterday", "assistant: Nice!"]


@pytest.mark.parametrize(
    ("given_time", "expected"),
    [
        ("2023-05-08T13:56:00+02:00", day(2023, 5, 8, 11).replace(minute=56)),
        (1683554160, datetime(2023, 5, 8, 13, 56, tzinfo=UTC)),
        ("2023-05-08T13:56:00Z", day(2023, 5, 8, 13).replace(minute=56)),
    ],
)
def test_a_message_time_is_iso_8601_with_a_zone_or_unix_seconds(given_time: object, expected: datetime) -> None:
    assert Message.model_validate({"role": "user", "content": "x", "created_at": given_time}).created_at == expected


@pytest.mark.parametrize("bad", ["2023-05-08T13:56:00", "yesterday", "2999-01-01T00:00:00+00:00"])
def test_a_message_time_without_a_zone_unparseable_or_in_the_future_is_refused(bad: str) -> None:
    with pytest.raises(ValidationError) as refused:
        AddRequest.model_validate({"user_id": "a", "messages": [{"role": "user", "content": "x", "created_at": bad}]})
    assert refused.value.errors()[0]["loc"] == ("messages", 0, "created_at")


def test_graph_relations_hold_from_when_they_were_said_and_history_told_late_stays_history() -> None:
    from engram.graph.service import GraphService
    from tests.fakes import MemoryGraphStore

    store = MemoryGraphStore()
    graph = GraphService(store, MemoryIndex(), HashEmbedder())
    scope = Scope(tenant_id="local", user_id="alice")
    for text, when in [
        ("My sister Maren lives in Oslo", day(2024, 3, 1)),
        ("My sister Maren lives in Bergen", day(2022, 1, 1)),
    ]:
        graph.ingest(scope, [Message(role="user", content=text, created_at=when)], [], f"t-{when.year}")
    lives = [r for r in store.relation_rows.values() if r.relation == "lives_in"]
    current = [r for r in lives if r.valid_to is None]
    assert [(r.destination, r.valid_from) for r in current] == [("Oslo", day(2024, 3, 1))]
    (older,) = [r for r in lives if r.valid_to is not None]
    assert (older.destination, older.valid_from, older.valid_to) == ("Bergen", day(2022, 1, 1), day(2024, 3, 1))
