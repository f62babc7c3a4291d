"""DynamoGraphStore against moto: the adjacency list answers both directions, pages, closes,
forgets a user, and keeps tenants and users apart."""

from __future__ import annotations

import json
from typing import Any

import pytest

from engram.adapters.dynamo.fact_store import DynamoFactStore
from engram.adapters.dynamo.graph_store import RELATION_SK, DynamoGraphStore, relation_pk
from engram.domain.errors import NotFoundError, ValidationError
from engram.domain.graph import Entity, Relation
from engram.domain.models import utcnow

TABLE = "engram-memory"


@pytest.fixture
def store(db: Any) -> DynamoGraphStore:
    return DynamoGraphStore(db, TABLE)


def entity(name: str, tenant: str = "acme", user: str = "u1") -> Entity:
    return Entity(tenant_id=tenant, user_id=user, name=name, type="person")


def relation(a: Entity, name: str, b: Entity) -> Relation:
    return Relation(
        tenant_id=a.tenant_id,
        user_id=a.user_id,
        source_entity_id=a.id,
        relation=name,
        destination_entity_id=b.id,
        source=a.name,
        destination=b.name,
    )


def test_relations_of_an_entity_in_both_directions(store: DynamoGraphStore) -> None:
    me, maren, oslo = entity("me"), entity("Maren"), entity("Oslo")
    store.put_entities([me, maren, oslo])
    sister, lives = relation(me, "sister", maren), relation(maren, "lives_in", oslo)
    store.put_relations([sister, lives])

    assert {r.id for r in store.relations_of("acme", [maren.id])} == {sister.id, lives.id}
    assert {r.id for r in store.relations_of("acme", [oslo.id])} == {lives.id}
    assert {r.id for r in store.relations_of("acme", [me.id, maren.id])} == {sister.id, lives.id}


def test_a_closed_relation_leaves_current_reads_and_stays_in_history(store: DynamoGraphStore) -> None:
    alice, mit = entity("Alice"), entity("MIT")
    works = relation(alice, "works_at", mit)
    store.put_relations([works])
    store.put_relations([works.model_copy(update={"valid_to": utcnow()})])

    assert store.relations_of("acme", [alice.id]) == []
    history = store.relations_of("acme", [alice.id], include_closed=True)
    assert [r.id for r in history] == [works.id] and history[0].valid_to is not None
    assert store.relations("acme", "u1").relations == []
    assert store.get_relation("acme", works.id).valid_to is not None


def test_entities_and_relations_of_a_user_page_with_cursors(store: DynamoGraphStore) -> None:
    people = [entity(f"P{i}") for i in range(7)]
    store.put_entities(people)
    store.put_relations([relation(people[0], "friend", p) for p in people[1:]])
    seen: list[str] = []
    cursor = None
    while True:
        page = store.entities("acme", "u1", 3, cursor)
        seen += [e.id for e in page.entities]
        if not (cursor := page.next_cursor):
            break
    assert sorted(seen) == sorted(p.id for p in people)
    first = store.relations("acme", "u1", 4)
    second = store.relations("acme", "u1", 4, first.next_cursor)
    assert len(first.relations) + len(second.relations) == 6 and second.next_cursor is None
    with pytest.raises(ValidationError):
        store.entities("acme", "u2", 3, first.next_cursor)  # another user's cursor


def test_other_tenants_and_users_see_nothing(store: DynamoGraphStore) -> None:
    a, b = entity("Anna"), entity("Oslo")
    store.put_entities([a, b])
    store.put_relations([relation(a, "lives_in", b)])
    with pytest.raises(NotFoundError):
        store.get_entity("globex", a.id)
    assert store.relations_of("globex", [a.id]) == []
    assert store.entities("acme", "u2").entities == []
    assert store.relations("globex", "u1").relations == []


def test_forget_user_removes_everything_of_that_user_only(store: DynamoGraphStore, db: Any) -> None:
    a, b = entity("Anna"), entity("Oslo")
    c, d = entity("Tom", user="u2"), entity("Rome", user="u2")
    store.put_entities([a, b, c, d])
    store.put_relations([relation(a, "lives_in", b), relation(c, "lives_in", d)])

    assert store.forget_user("acme", "u1") == 3
    assert store.forget_user("acme", "u1") == 0
    assert store.relations_of("acme", [a.id, b.id], include_closed=True) == []
    assert store.entities("acme", "u1").entities == []
    assert len(store.relations("acme", "u2").relations) == 1


def test_graph_items_do_not_show_up_as_memories(store: DynamoGraphStore, db: Any) -> None:
    a, b = entity("Anna"), entity("Oslo")
    store.put_entities([a, b])
    store.put_relations([relation(a, "lives_in", b)])
    assert DynamoFactStore(db, TABLE).list_current("acme", "u1").items == []


def test_a_relation_keeps_the_memories_it_links_and_old_items_read_without(store: DynamoGraphStore, db: Any) -> None:
    maren, oslo = entity("Maren"), entity("Oslo")
    store.put_entities([maren, oslo])
    linked = relation(maren, "lives_in", oslo).model_copy(update={"memory_ids": ["m1", "m2"]})
    store.put_relations([linked])
    assert [r.memory_ids for r in store.relations_of("acme", [oslo.id])] == [["m1", "m2"]]
    assert store.get_relation("acme", linked.id).memory_ids == ["m1", "m2"]
    # an item written before the link existed: its JSON body has no memory_ids
    old = relation(oslo, "near", maren)
    store.put_relations([old])
    key = {"pk": {"S": relation_pk("acme", old.id)}, "sk": {"S": RELATION_SK}}
    body = old.model_dump(mode="json", exclude={"memory_ids"})
    db.update_item(
        TableName=TABLE,
        Key=key,
        UpdateExpression="SET body = :b",
        ExpressionAttributeValues={":b": {"S": json.dumps(body)}},
    )
    assert "memory_ids" not in db.get_item(TableName=TABLE, Key=key)["Item"]["body"]["S"]
    assert store.get_relation("acme", old.id).memory_ids == []
