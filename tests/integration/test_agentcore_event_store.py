"""AgentCore's events on the memory table: a session's events newest first, page by page with filters;
the event expiry honoured; sessions listed per actor; tokens good only for their own listing."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest

from engram.adapters.dynamo.event_store import DynamoEventStore
from engram.agentcore.ids import new_event_id
from engram.domain.agentcore import StoredEvent
from engram.domain.errors import NotFoundError, ValidationError
from engram.domain.models import utcnow
from engram.settings import Settings

T0 = datetime(2026, 1, 1, tzinfo=UTC)
TABLE = Settings().memory_table


def event(minute: int, session: str = "s1", expires_in: timedelta = timedelta(days=90), **fields: Any) -> StoredEvent:
    when = T0 + timedelta(minutes=minute)
    payload = [{"conversational": {"content": {"text": f"turn {minute}"}, "role": "USER"}}]
    return StoredEvent(
        tenant_id=fields.pop("tenant_id", "acme"),
        actor_id="alice",
        session_id=session,
        event_id=new_event_id(when),
        event_timestamp=when,
        expires_at=utcnow() + expires_in,
        payload=payload,
        **fields,
    )


def ids(store: DynamoEventStore, limit: int, keep: Any = lambda e: True, session: str = "s1") -> list[list[str]]:
    pages, token = [], None
    while True:
        page = store.events("acme", "alice", session, keep, limit, token)
        pages.append([e.event_id for e in page.items])
        token = page.next_token
        if token is None:
            return pages


def test_events_page_newest_first_and_filters_keep_full_pages(db: Any) -> None:
    store = DynamoEventStore(db, TABLE)
    made = [event(m, metadata={"n": str(m)}) for m in range(7)]
    for e in reversed(made):  # stored out of order: the event time sorts them
        store.put(e)
    newest = [e.event_id for e in reversed(made)]
    assert ids(store, 3) == [newest[:3], newest[3:6], newest[6:]]
    even = ids(store, 2, lambda e: int(e.metadata["n"]) % 2 == 0)
    assert even == [[newest[0], newest[2]], [newest[4], newest[6]]]
    assert store.get("acme", "alice", "s1", made[3].event_id) == made[3]


def test_an_expired_event_is_neither_read_nor_listed(db: Any) -> None:
    store = DynamoEventStore(db, TABLE)
    kept, expired = event(1), event(2, expires_in=timedelta(seconds=-1))
    store.put(kept)
    store.put(expired)
    assert ids(store, 10) == [[kept.event_id]]
    with pytest.raises(NotFoundError):
        store.get("acme", "alice", "s1", expired.event_id)


def test_delete_and_other_tenants(db: Any) -> None:
    store = DynamoEventStore(db, TABLE)
    mine = event(1)
    store.put(mine)
    store.put(event(2, tenant_id="globex"))
    with pytest.raises(NotFoundError):
        store.get("globex", "alice", "s1", mine.event_id)
    store.delete("acme", "alice", "s1", mine.event_id)
    with pytest.raises(NotFoundError):
        store.delete("acme", "alice", "s1", mine.event_id)
    assert ids(store, 10) == [[]]


def test_sessions_are_listed_with_their_first_events_time_and_paged(db: Any) -> None:
    store = DynamoEventStore(db, TABLE)
    first = event(1, session="b")
    store.put(first)
    store.put(event(2, session="b"))
    store.put(event(3, session="a"))
    page = store.sessions("acme", "alice", 1, None)
    assert [s for s, _ in page.items] == ["a"] and page.next_token
    rest = store.sessions("acme", "alice", 1, page.next_token)
    assert [(s, at) for s, at in rest.items] == [("b", first.created_at)]
    assert rest.next_token is None  # no token for an empty page after the last


def test_a_token_from_another_listing_is_refused_naming_next_token(db: Any) -> None:
    store = DynamoEventStore(db, TABLE)
    store.put(event(1, session="s1"))
    store.put(event(2, session="s1"))
    token = store.events("acme", "alice", "s1", lambda e: True, 1, None).next_token
    assert token
    with pytest.raises(ValidationError) as caught:
        store.events("acme", "alice", "s2", lambda e: True, 1, token)
    assert caught.value.field == "nextToken"


def test_forgetting_an_actor_deletes_its_events_and_sessions_only(db: Any) -> None:
    store = DynamoEventStore(db, TABLE)
    for minute in range(120):  # more than one page of events
        store.put(event(minute, session="long"))
    store.put(event(1, session="short"))
    kept = event(2, tenant_id="globex")
    store.put(kept)
    store.forget_actor("acme", "alice")
    store.forget_actor("acme", "alice")  # again, as a retried delete-all does: nothing left, no error
    assert ids(store, 200, session="long") == [[]] and ids(store, 200, session="short") == [[]]
    assert store.sessions("acme", "alice", 10, None).items == []
    assert store.get("globex", "alice", "s1", kept.event_id) == kept
