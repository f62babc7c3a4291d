"""DynamoFactStore against moto: round trips, versions, history, soft delete, isolation, paging."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any, cast

import boto3
import pytest
from botocore.stub import Stubber

from engram.adapters.dynamo import fact_store
from engram.adapters.dynamo.fact_store import DynamoFactStore
from engram.domain.errors import ConflictError, EngramError, NotFoundError, TransientError, ValidationError
from engram.domain.models import Event, Fact, HistoryEvent, MemoryBank, SearchFilters
from engram.domain.statements import Statement

TABLE = "engram-memory"
T0 = datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=UTC)


@pytest.fixture
def store(db: Any) -> DynamoFactStore:
    return DynamoFactStore(db, TABLE)


def fact(text: str = "likes green tea", tenant: str = "acme", user: str = "u1", **kw: Any) -> Fact:
    return Fact(tenant_id=tenant, user_id=user, text=text, **kw)


def event(f: Fact, kind: Event = Event.ADD, old: str | None = None, **kw: Any) -> HistoryEvent:
    return HistoryEvent(
        memory_id=f.id,
        tenant_id=f.tenant_id,
        user_id=f.user_id,
        event=kind,
        old_memory=old,
        new_memory=f.text,
        version=f.version,
        **kw,
    )


def partition(db: Any, f: Fact) -> list[dict[str, Any]]:
    resp = db.query(
        TableName=TABLE,
        KeyConditionExpression="pk = :p",
        ExpressionAttributeValues={":p": {"S": f"T#{f.tenant_id}#M#{f.id}"}},
    )
    return list(resp["Items"])


def test_every_fact_field_round_trips(store: DynamoFactStore) -> None:
    original = fact(
        agent_id="agent-7",
        run_id="run-3",
        fact_key="drink",
        fact_value="green tea",
        memory_bank=MemoryBank.INTERESTS,
        importance=0.73,
        metadata={
            "source": "chat",
            "score": 0.25,
            "count": 3,
            "ok": True,
            "none": None,
            "tags": ["a", 2, 1.5],
            "nested": {"deep": {"x": "y"}, "empty": []},
        },
        attachment_ids=["att-1", "att-2"],
        valid_from=T0,
        created_at=T0,
        updated_at=T0 + timedelta(seconds=1),
        last_accessed_at=datetime(2024, 5, 2, 8, 30, tzinfo=timezone(timedelta(hours=2))),
        access_count=4,
        is_protected=True,
        is_summarized=True,
        summarized_from=["m1", "m2"],
        embedding_model="all-MiniLM-L6-v2",
        statements=[
            Statement(attribute="drink", value="green tea", event_time=T0, outdated_by="m9"),
            Statement(subject="my sister Ines", attribute="home", value="Lyon", polarity="past", single=True),
        ],
    )
    assert store.add(original, event(original)) is True
    got = store.get("acme", original.id)
    assert got == original
    assert isinstance(got.metadata["score"], float) and isinstance(got.metadata["count"], int)
    assert got.metadata["nested"] == {"deep": {"x": "y"}, "empty": []}


def test_fact_with_defaults_and_empty_lists_round_trips(store: DynamoFactStore) -> None:
    original = fact()
    store.add(original, event(original))
    assert store.get("acme", original.id) == original


def test_an_item_stored_before_statements_reads_as_stating_nothing(db: Any, store: DynamoFactStore) -> None:
    original = fact(statements=[Statement(attribute="drink", value="green tea")])
    store.add(original, event(original))
    key = {"pk": {"S": f"T#acme#M#{original.id}"}, "sk": {"S": fact_store.FACT_SK}}
    db.update_item(TableName=TABLE, Key=key, UpdateExpression="REMOVE statements")

    assert store.get("acme", original.id).statements == []


def test_history_event_fields_round_trip(store: DynamoFactStore) -> None:
    f = fact()
    ev = event(f, actor="user:42", task_id="task-1", attachments_added=["a1"], attachments_removed=["a0"])
    store.add(f, ev)
    assert store.history("acme", f.id) == [ev]


def test_adding_the_same_fact_twice_is_a_no_op(store: DynamoFactStore) -> None:
    f = fact()
    first = event(f)
    assert store.add(f, first) is True
    assert store.add(f.model_copy(update={"text": "changed"}), event(f)) is False
    assert store.get("acme", f.id).text == "likes green tea"
    assert store.history("acme", f.id) == [first]


def test_add_many_writes_all_in_transactions_and_skips_replays(store: DynamoFactStore) -> None:
    facts = [fact(f"fact number {i}") for i in range(60)]  # more than one transaction (50 facts)
    already = [facts[3], facts[55]]
    for f in already:
        store.add(f.model_copy(update={"text": "written earlier"}), event(f))

    added = store.add_many([(f, event(f)) for f in facts])

    assert added == [f not in already for f in facts]
    assert [store.get("acme", f.id).text for f in facts] == [
        "written earlier" if f in already else f.text for f in facts
    ]
    assert all(len(store.history("acme", f.id)) == 1 for f in facts)  # a replay adds no event
    assert store.add_many([(f, event(f)) for f in facts[:5]]) == [False] * 5
    assert store.add_many([]) == []


def test_replace_bumps_version_and_keeps_the_old_one(db: Any, store: DynamoFactStore) -> None:
    v1 = fact(created_at=T0, valid_from=T0)
    store.add(v1, event(v1, created_at=T0))
    switched = T0 + timedelta(days=1)
    v2 = v1.model_copy(update={"text": "likes oolong tea", "version": 2, "valid_from": switched})
    store.replace(v1, v2, event(v2, Event.UPDATE, old=v1.text, created_at=switched))

    current = store.get("acme", v1.id)
    assert (current.text, current.version) == ("likes oolong tea", 2)
    snapshot = next(i for i in partition(db, v1) if i["sk"]["S"] == "V#00000001")
    assert snapshot["text"]["S"] == "likes green tea"
    assert datetime.fromisoformat(snapshot["valid_to"]["S"]) == switched
    assert "gsi1pk" not in snapshot  # only the current version is listed
    history = store.history("acme", v1.id)
    assert [(h.event, h.old_memory, h.new_memory) for h in history] == [
        (Event.ADD, None, "likes green tea"),
        (Event.UPDATE, "likes green tea", "likes oolong tea"),
    ]
    assert [f.text for f in store.list_current("acme", "u1").items] == ["likes oolong tea"]


def test_replace_with_a_stale_version_conflicts_and_writes_nothing(db: Any, store: DynamoFactStore) -> None:
    v1 = fact()
    store.add(v1, event(v1))
    v2 = v1.model_copy(update={"text": "v2", "version": 2})
    store.replace(v1, v2, event(v2, Event.UPDATE, old=v1.text))
    before = partition(db, v1)

    stale = v1.model_copy(update={"text": "a stale view"})
    with pytest.raises(ConflictError):
        store.replace(stale, stale.model_copy(update={"text": "v2 again", "version": 2}), event(stale))

    assert partition(db, v1) == before
    assert store.get("acme", v1.id).text == "v2"
    assert len(store.history("acme", v1.id)) == 2


def test_replace_rejects_a_wrong_next_version(store: DynamoFactStore) -> None:
    v1 = fact()
    store.add(v1, event(v1))
    with pytest.raises(ValueError, match="version"):
        store.replace(v1, v1.model_copy(update={"version": 5}), event(v1))


def test_close_is_a_soft_delete(db: Any, store: DynamoFactStore) -> None:
    f = fact()
    store.add(f, event(f))
    ended = T0 + timedelta(days=3)
    store.close(f, ended, event(f, Event.DELETE, old=f.text))

    assert store.list_current("acme", "u1").items == []
    assert store.get_many("acme", [f.id]) == []
    with pytest.raises(NotFoundError):
        store.get("acme", f.id)
    closed = store.get("acme", f.id, include_closed=True)
    assert (closed.valid_to, closed.version, closed.text) == (ended, 2, f.text)
    head = next(i for i in partition(db, f) if i["sk"]["S"] == "FACT")
    assert "gsi1pk" not in head and "gsi1sk" not in head
    assert [h.event for h in store.history("acme", f.id)] == [Event.ADD, Event.DELETE]


def test_close_with_a_stale_version_conflicts(store: DynamoFactStore) -> None:
    f = fact()
    store.add(f, event(f))
    v2 = f.model_copy(update={"text": "v2", "version": 2})
    store.replace(f, v2, event(v2, Event.UPDATE))
    with pytest.raises(ConflictError):
        store.close(f, T0, event(f, Event.DELETE))
    assert store.get("acme", f.id).is_current
    assert len(store.history("acme", f.id)) == 2


def test_another_tenant_cannot_reach_a_memory(db: Any, store: DynamoFactStore) -> None:
    f = fact(tenant="acme", user="u1")
    store.add(f, event(f))
    with pytest.raises(NotFoundError):
        store.get("globex", f.id, include_closed=True)
    assert store.get_many("globex", [f.id]) == []
    assert store.list_current("globex", "u1").items == []
    assert store.history("globex", f.id) == []
    store.touch("globex", {f.id: 1}, T0)
    intruder = f.model_copy(update={"tenant_id": "globex"})
    with pytest.raises(ConflictError):
        store.close(intruder, T0, event(intruder, Event.DELETE))
    assert store.get("acme", f.id) == f  # untouched by anything above
    assert len(partition(db, intruder)) == 0


def test_a_cursor_only_works_for_the_listing_it_came_from(store: DynamoFactStore) -> None:
    for i in range(3):
        f = fact(f"fact {i}")
        store.add(f, event(f))
    cursor = store.list_current("acme", "u1", limit=1).next_cursor
    assert cursor is not None
    with pytest.raises(ValidationError):
        store.list_current("globex", "u1", limit=1, cursor=cursor)
    with pytest.raises(ValidationError):
        store.list_current("acme", "u2", limit=1, cursor=cursor)
    with pytest.raises(ValidationError):
        store.list_current("acme", "u1", cursor="not-a-cursor!")
    with pytest.raises(ValidationError):
        store.list_current("acme", "u1", limit=0)


def test_tenant_ids_that_could_forge_keys_are_rejected(store: DynamoFactStore) -> None:
    with pytest.raises(ValidationError):
        store.get("acme#M#x", "y")


def _seed_listing(store: DynamoFactStore) -> list[Fact]:
    facts = []
    for i in range(23):
        f = fact(
            f"fact {i}",
            created_at=T0 + timedelta(minutes=i),
            agent_id="a1" if i % 2 else "a2",
            run_id=f"r{i % 3}",
            memory_bank=MemoryBank.WORK if i % 4 == 0 else MemoryBank.GENERAL,
            metadata={"topic": "food" if i % 3 == 0 else "work", "n": i, "flag": i % 5 == 0},
        )
        store.add(f, event(f))
        facts.append(f)
    noise = [fact("other user", user="u2"), fact("other tenant", tenant="globex")]
    for f in noise:
        store.add(f, event(f))
    store.close(facts[3], T0, event(facts[3], Event.DELETE))  # closed: never listed
    return [f for i, f in enumerate(facts) if i != 3]


def _all_pages(store: DynamoFactStore, limit: int, filters: SearchFilters | None) -> list[list[Fact]]:
    pages, cursor = [], None
    while True:
        page = store.list_current("acme", "u1", limit=limit, cursor=cursor, filters=filters)
        pages.append(page.items)
        cursor = page.next_cursor
        if cursor is None:
            return pages


@pytest.mark.parametrize("query_page", [1, 100])
@pytest.mark.parametrize(
    ("filters", "limit"),
    [
        (None, 5),
        (None, 11),  # 22 current facts: two full pages, no empty third page
        (SearchFilters(agent_id="a1"), 3),
        (SearchFilters(metadata={"topic": "food"}), 2),
        (SearchFilters(agent_id="a2", run_id="r0"), 1),
        (SearchFilters(memory_bank="Work", metadata={"flag": True}), 1),
        (SearchFilters(metadata={"n": 7, "topic": "work"}), 4),
    ],
)
def test_pages_return_every_match_once_newest_first(
    store: DynamoFactStore,
    monkeypatch: pytest.MonkeyPatch,
    filters: SearchFilters | None,
    limit: int,
    query_page: int,
) -> None:
    monkeypatch.setattr(fact_store, "_FILTERED_PAGE", query_page)  # force many small queries
    current = _seed_listing(store)
    f = filters or SearchFilters()
    expected = [
        x
        for x in reversed(current)
        if (f.agent_id in (None, x.agent_id))
        and (f.run_id in (None, x.run_id))
        and (f.memory_bank in (None, x.memory_bank.value))
        and all(x.metadata.get(k) == v for k, v in f.metadata.items())
    ]
    assert expected  # the case must exercise something
    pages = _all_pages(store, limit, filters)
    assert [x.id for page in pages for x in page] == [x.id for x in expected]
    assert all(len(page) == limit for page in pages[:-1])
    assert 1 <= len(pages[-1]) <= limit


def test_get_many_keeps_order_skips_missing_and_chunks(store: DynamoFactStore) -> None:
    facts = [fact(f"fact {i}") for i in range(105)]
    for f in facts:
        store.add(f, event(f))
    wanted = [f.id for f in reversed(facts)]
    wanted.insert(50, "missing-id")
    got = store.get_many("acme", [*wanted, wanted[0]])
    assert [f.id for f in got] == [f.id for f in reversed(facts)]


class _Throttled:
    """Delegates to a real client, but the first BatchGetItem answers only half the keys."""

    def __init__(self, client: Any) -> None:
        self._client = client
        self.batch_calls = 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._client, name)

    def batch_get_item(self, RequestItems: dict[str, Any]) -> dict[str, Any]:
        self.batch_calls += 1
        if self.batch_calls > 1:
            return dict(self._client.batch_get_item(RequestItems=RequestItems))
        request = RequestItems[TABLE]
        half = len(request["Keys"]) // 2
        resp = self._client.batch_get_item(RequestItems={TABLE: {**request, "Keys": request["Keys"][:half]}})
        resp["UnprocessedKeys"] = {TABLE: {**request, "Keys": request["Keys"][half:]}}
        return dict(resp)


def test_get_many_retries_unprocessed_keys(db: Any) -> None:
    throttled = _Throttled(db)
    store = DynamoFactStore(cast(Any, throttled), TABLE)
    facts = [fact(f"fact {i}") for i in range(6)]
    for f in facts:
        store.add(f, event(f))
    assert [f.id for f in store.get_many("acme", [f.id for f in facts])] == [f.id for f in facts]
    assert throttled.batch_calls == 2


def test_touch_records_access_without_a_new_version(db: Any, store: DynamoFactStore) -> None:
    f = fact()
    store.add(f, event(f))
    when = T0 + timedelta(hours=5)
    store.touch("acme", {f.id: 2, "missing-id": 1}, when)  # two searches found it since the last write
    store.touch("acme", {f.id: 1}, when + timedelta(minutes=1))
    got = store.get("acme", f.id)
    assert (got.access_count, got.last_accessed_at, got.version) == (3, when + timedelta(minutes=1), 1)
    assert got.text == f.text
    with pytest.raises(NotFoundError):
        store.get("acme", "missing-id", include_closed=True)
    assert len(store.history("acme", f.id)) == 1


def test_a_missing_table_is_a_clear_error(db: Any) -> None:
    with pytest.raises(EngramError, match="no-such-table") as info:
        DynamoFactStore(db, "no-such-table").get("acme", "x")
    assert not isinstance(info.value, NotFoundError)


@pytest.mark.parametrize("code", ["ProvisionedThroughputExceededException", "ThrottlingException"])
def test_throttling_is_transient(code: str) -> None:
    client = boto3.client("dynamodb", region_name="us-east-1")
    with Stubber(client) as stub:
        stub.add_client_error("get_item", service_error_code=code, http_status_code=400)
        with pytest.raises(TransientError):
            DynamoFactStore(client, TABLE).get("acme", "x")


def test_close_many_closes_in_bulk_and_skips_a_memory_changed_since_read(db: Any, store: DynamoFactStore) -> None:
    facts = [fact(f"fact {i}") for i in range(60)]  # more than one transaction
    store.add_many([(f, event(f)) for f in facts])
    changed = facts[7]
    store.replace(changed, changed.model_copy(update={"text": "edited", "version": 2}), event(changed, Event.UPDATE))
    ended = T0 + timedelta(days=1)

    closed = store.close_many([(f, event(f, Event.DELETE, old=f.text)) for f in facts], ended)

    assert closed == [i != 7 for i in range(60)]
    assert [f.text for f in store.list_current("acme", "u1").items] == ["edited"]
    gone = store.get("acme", facts[0].id, include_closed=True)
    assert (gone.valid_to, gone.version, gone.text) == (ended, 2, "fact 0")
    assert "gsi1pk" not in next(i for i in partition(db, facts[0]) if i["sk"]["S"] == "FACT")
    assert [h.event for h in store.history("acme", facts[0].id)] == [Event.ADD, Event.DELETE]
    assert [h.event for h in store.history("acme", changed.id)] == [Event.ADD, Event.UPDATE]  # nothing of the close


def test_history_pages_oldest_first_and_rejects_another_memorys_cursor(store: DynamoFactStore) -> None:
    f, other = fact(), fact("other")
    store.add(f, event(f))
    store.add(other, event(other))
    current = f
    for i in range(4):
        nxt = current.model_copy(update={"text": f"v{i + 2}", "version": current.version + 1})
        store.replace(current, nxt, event(nxt, Event.UPDATE, created_at=T0 + timedelta(seconds=i + 1)))
        current = nxt
    first = store.history_page("acme", f.id, 3)
    second = store.history_page("acme", f.id, 3, first.next_cursor)
    assert len(first.items) == 3 and second.next_cursor is None
    assert [e.id for e in first.items + second.items] == [e.id for e in store.history("acme", f.id)]
    with pytest.raises(ValidationError):
        store.history_page("acme", other.id, 3, first.next_cursor)


def test_a_listing_refuses_a_statement_filter_it_cannot_apply(store: DynamoFactStore) -> None:
    """Statements are found by the index's keys; a listing asked for them says so instead of ignoring it."""
    with pytest.raises(ValidationError) as caught:
        store.list_current("acme", "u1", filters=SearchFilters(attribute="home"))
    assert caught.value.field == "filters.attribute"
