"""`engram export`, then `engram import` into a user of another tenant: every field of every current memory
comes back (docs/api.md, "Export and import"). The fields compared are the stored memory model's own
(`Fact.model_fields`), so a field added later that the round trip does not carry fails here: the rich
user below must give it a value other than its default, and the import must then bring it back."""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import httpx
import pytest

from engram.domain.graph import USER_ENTITY_TYPE, Entity, Relation
from engram.domain.models import Fact, MemoryBank, MemorySource
from engram.domain.statements import Statement
from engram.graph.resolve import index_entities, user_entity_id
from engram.writes.unit_of_work import next_version
from engram_client import Engram
from engram_client.cli.export import export_user
from engram_client.cli.sources import read_units
from engram_client.cli.transfer import Importer, ImportState
from tests.integration.stack import Stack, api_caller, moto_stack
from tests.integration.test_delete_all import run_queued
from tests.support.handlers import FakeContext, api_event, load_function
from tests.support.round_trip import (
    Key,
    Shown,
    by_version,
    graph_lost,
    histories_lost,
    lost_by_version,
    unset_fields,
)

API = "http://engram.test"
SAID = datetime(2025, 3, 14, 9, 30, tzinfo=UTC)  # when the conversation happened (event time)


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    with moto_stack(monkeypatch) as s:
        yield s


def transport(stack: Stack, tenant: str) -> httpx.MockTransport:
    """The API function behind API Gateway, as the SDK sees it; queued tasks run as the queue delivers
    them, and presigned S3 URLs read the blob store."""
    api = load_function("api")
    extraction = load_function("extraction").lambda_handler

    def handle(request: httpx.Request) -> httpx.Response:
        url = urlsplit(str(request.url))
        if not str(request.url).startswith(API):  # a presigned download URL
            return httpx.Response(200, content=stack.container.blobs.get(url.path.lstrip("/")))
        query = dict(request.url.params) or None
        event = api_event(request.method, url.path, query=query, tenant=tenant, raw_body=request.content.decode())
        if not request.content:
            event["body"] = None
        resp = api.lambda_handler(event, FakeContext())
        if request.method == "POST" and url.path == "/v1/memories/import":
            run_queued(stack, extraction)
        return httpx.Response(resp["statusCode"], headers=resp.get("headers") or {}, content=resp["body"] or b"")

    return httpx.MockTransport(handle)


def rich_user(stack: Stack, tenant: str, user: str) -> None:
    """Memories with every field of the model set: an episode outdated by a later statement, facts read
    from it (key and value, the speaker, the span, the event time), a protected one, one that expires,
    one with an attachment, a corrected one (version 2, via PATCH; its version 1 closed), a summary of two
    others, reads, and a forgotten one (closed)."""
    c = stack.container
    lease, _ = c.attachments.create(
        tenant, "lease.pdf", "application/pdf", "the flat's lease", "JVBERiBsZWFzZQ==", user
    )
    model = c.embedder.model_id

    def source(task: str, index: int, **more: Any) -> MemorySource:
        return MemorySource(task_id=task, message_index=index, role="user", name="Alice", at=SAID, **more)

    said = "I moved from Berlin to Munich, and I still work at Siemens."
    episode = Fact(tenant_id=tenant, user_id=user, text=said, kind="episode", source=source("t1", 0), valid_from=SAID)
    munich = Fact(
        tenant_id=tenant,
        user_id=user,
        agent_id="coach",
        run_id="run-7",
        text="Lives in Munich",
        fact_key="home city",
        fact_value="Munich",
        memory_bank=MemoryBank.PERSONAL,
        importance=0.9,
        episode_id=episode.id,
        source=source("t1", 0, span=(0, 29)),
        valid_from=SAID,
        created_at=SAID + timedelta(minutes=1),
        updated_at=SAID + timedelta(minutes=1),
        expires_at=datetime(2099, 1, 1, tzinfo=UTC),
        metadata={"topic": "home", "n": 2},
        embedding_model=model,
    )
    siemens = Fact(
        tenant_id=tenant,
        user_id=user,
        text="Works at Siemens",
        fact_key="employer",
        fact_value="Siemens",
        memory_bank=MemoryBank.WORK,
        is_protected=True,
        episode_id=episode.id,
        attachment_ids=[lease.id],
        source=MemorySource(task_id="t2", message_index=3, role="assistant", name="Coach", at=SAID),
        embedding_model=model,
    )
    summary = Fact(
        tenant_id=tenant,
        user_id=user,
        text="Alice lives in Munich and works at Siemens",
        is_summarized=True,
        summarized_from=[munich.id, siemens.id],
        embedding_model=model,
    )
    # What the episode states, as a resolver leaves it: its earlier home outdated by the Munich memory.
    stated = [
        Statement(attribute="home", value="Berlin", single=True, event_time=SAID, outdated_by=munich.id),
        Statement(attribute="home", value="Munich", single=True, event_time=SAID),
        Statement(attribute="employer", value="Siemens", single=True),
    ]
    episode = episode.model_copy(update={"outdated_by": [munich.id], "embedding_model": model, "statements": stated})
    batch = c.writes.lifecycle.changes(tenant, user)
    for fact in (episode, munich, siemens, summary):
        batch.add(fact, actor="test")
    batch.commit()
    batch = c.writes.lifecycle.changes(tenant, user)
    corrected = next_version(
        siemens, "Works at Siemens in Munich", source=siemens.source.model_copy(update={"via": "patch"})
    )  # type: ignore[union-attr]
    batch.rewrite(siemens, corrected, actor="test")
    batch.commit()
    c.facts.touch(tenant, {munich.id: 1, episode.id: 1}, datetime.now(UTC))
    forgotten = Fact(tenant_id=tenant, user_id=user, text="Likes tennis", valid_from=SAID, embedding_model=model)
    batch = c.writes.lifecycle.changes(tenant, user)
    batch.add(forgotten, actor="test")
    batch.commit()
    batch = c.writes.lifecycle.changes(tenant, user)
    batch.close(forgotten, actor="test")
    batch.commit()
    rich_graph(stack, tenant, user, {"episode": episode.id, "munich": munich.id, "siemens": siemens.id})


def rich_graph(stack: Stack, tenant: str, user: str, memories: dict[str, str]) -> None:
    """The user's graph with every field of its models set: the user's sister Maren (an alias) moved
    from Bergen to Oslo (the Bergen relation closed by a task, the Oslo one refining it), the user works
    at Siemens; each relation linked to the memories that state it."""
    graph = stack.container.graph
    assert graph is not None
    later = SAID + timedelta(days=30)

    def entity(name: str, kind: str, **more: Any) -> Entity:
        return Entity(tenant_id=tenant, user_id=user, name=name, type=kind, created_at=SAID, updated_at=later, **more)

    me = entity(user, USER_ENTITY_TYPE, id=user_entity_id(user))
    maren, bergen, oslo = entity("Maren", "person", aliases=["Mare"]), entity("Bergen", "city"), entity("Oslo", "city")
    siemens = entity("Siemens", "organization")

    def relation(a: Entity, kind: str, b: Entity, said: list[str], **more: Any) -> Relation:
        return Relation(
            tenant_id=tenant,
            user_id=user,
            source_entity_id=a.id,
            relation=kind,
            destination_entity_id=b.id,
            source=a.name,
            destination=b.name,
            memory_ids=[memories[m] for m in said],
            task_id="t1",
            **{"valid_from": SAID, **more},
        )

    bergen_then = relation(maren, "lives_in", bergen, ["episode"], valid_to=later, closed_by="t3")
    relations = [
        relation(me, "sister", maren, ["episode"]),
        bergen_then,
        relation(maren, "lives_in", oslo, ["munich", "episode"], valid_from=later, refined_from=bergen_then.id),
        relation(me, "works_at", siemens, ["siemens"]),
    ]
    entities = [me, maren, bergen, oslo, siemens]
    graph.store.put_entities(entities)
    index_entities(graph.index, graph.embedder, entities)
    graph.store.put_relations(relations)


def stored_graph(stack: Stack, tenant: str, user: str) -> tuple[list[Entity], list[Relation]]:
    """The user's entities and relations, closed ones too, as stored."""
    graph = stack.container.graph
    assert graph is not None
    entities = graph.store.entities(tenant, user, 1000).entities
    return entities, graph.store.relations(tenant, user, 1000, include_closed=True).relations


def stored(stack: Stack, tenant: str, user: str) -> dict[Key, Fact]:
    """Every version of the user's memories, current and closed, as stored."""
    return by_version(stack.container.facts.list_versions(tenant, user, limit=1000).items)


def test_every_field_of_every_memory_comes_back_after_export_and_import(stack: Stack, tmp_path: Path) -> None:
    rich_user(stack, "acme", "alice")
    before = stored(stack, "acme", "alice")
    assert not unset_fields(list(before.values())), "set them in rich_user; export and import must carry them"
    graph_before = stored_graph(stack, "acme", "alice")
    assert not unset_fields(graph_before[1], Relation), "set them in rich_graph; export and import must carry them"
    assert not unset_fields(graph_before[0], Entity), "set them in rich_graph; export and import must carry them"

    out = io.StringIO()
    with Engram(API, "k", transport=transport(stack, "acme"), events=False) as source:
        assert export_user(source, "alice", out) == len(before)
    exported = tmp_path / "alice.jsonl"
    exported.write_text(out.getvalue(), encoding="utf-8")
    with Engram(API, "k", transport=transport(stack, "globex"), events=False) as target:
        report = Importer(target).run(read_units(exported, "bob", 20), ImportState.load(exported, "globex bob"))
    assert (report.added, report.skipped, report.failed) == (len(before), 0, [])
    assert (report.relations, report.relations_added, report.relations_skipped) == (4, 4, 0)

    after = stored(stack, "globex", "bob")
    assert sorted(after) == sorted(before)
    targets = {"tenant_id": "globex", "user_id": "bob", "embedding_model": stack.container.embedder.model_id}
    assert lost_by_version(before, after, targets, attachments(stack)) == {key: [] for key in before}
    assert len([f for f in after.values() if f.valid_to]) == len([f for f in before.values() if f.valid_to]) == 2
    lost = histories_lost(before, after, targets, stack.container.facts.history)
    assert lost == {f.id: [] for f in before.values()}
    # The graph: every entity and relation, closed ones too, field by field (issue 46).
    memory_ids = {old.id: after[key].id for key, old in before.items()}
    graph_after = stored_graph(stack, "globex", "bob")
    assert graph_lost(graph_before, graph_after, memory_ids, targets) == {
        **{f"entity {(e.type, e.name)}": [] for e in graph_before[0]},
        **{f"relation {(r.source, r.relation, r.destination, r.valid_from.isoformat())}": [] for r in graph_before[1]},
    }
    # Entities made the product's way: their names are in bob's entity index, as an extraction's are.
    graph = stack.container.graph
    assert graph is not None and graph.index.ids("globex", "bob") == {e.id for e in graph_after[0]}
    # Into bob again: nothing new, in the graph neither.
    with Engram(API, "k", transport=transport(stack, "globex"), events=False) as target:
        again = Importer(target).run(read_units(exported, "bob", 20), ImportState.load(exported, "globex bob 2"))
    assert (again.added, again.relations_added, again.relations_skipped, again.failed) == (0, 0, 4, [])
    assert stored_graph(stack, "globex", "bob") == graph_after
    # Back into the user it came from, closed versions and forgotten memories included: nothing new.
    with Engram(API, "k", transport=transport(stack, "acme"), events=False) as source:
        home = Importer(source).run(read_units(exported, None, 20), ImportState.load(exported, "acme alice"))
    assert (home.added, home.skipped, home.failed) == (0, len(before), [])
    assert (home.relations_added, home.relations_skipped) == (0, 4)
    assert stored(stack, "acme", "alice") == before
    assert stored_graph(stack, "acme", "alice") == graph_before
    # Searchable as any memory: the index holds bob's current memories, and no closed version.
    assert stack.container.index.ids("globex", "bob") == {f.id for f in after.values() if f.valid_to is None}
    # What the memory page showed: one outdated memory before, none after (issue 46).
    assert len([f for f in after.values() if f.outdated_by]) == len([f for f in before.values() if f.outdated_by]) == 1


def attachments(stack: Stack) -> Callable[[str], Shown]:
    def of_tenant(tenant: str) -> Shown:
        def shown(ids: Sequence[str]) -> list[tuple[Any, ...]]:
            found = stack.container.attachments.store.get_many(tenant, list(ids))
            return [(a.name, a.media_type, a.description, a.size, a.checksum) for a in map(found.get, ids) if a]

        return shown

    return of_tenant


def test_every_version_is_listed_alone_and_a_filter_beside_it_is_named(stack: Stack) -> None:
    call = api_caller(load_function("api"))
    rich_user(stack, "acme", "alice")
    status, page = call("GET", "/v1/memories", query={"user_id": "alice", "versions": "all", "limit": "2"})
    assert status == 200 and len(page["results"]) == 2 and page["next_cursor"]
    listed = page["results"]
    while page["next_cursor"]:
        query = {"user_id": "alice", "versions": "all", "limit": "2", "cursor": page["next_cursor"]}
        page = call("GET", "/v1/memories", query=query)[1]
        listed += page["results"]
    assert sorted((m["memory"], m["version"]) for m in listed) == sorted(stored(stack, "acme", "alice"))
    assert call("GET", "/v1/memories", query={"user_id": "bob", "versions": "all"})[1]["results"] == []

    for other in ({"as_of": "2026-01-01T00:00:00Z"}, {"memory_bank": "Work"}):
        status, body = call("GET", "/v1/memories", query={"user_id": "alice", "versions": "all", **other})
        assert status == 400 and body["field"] == "versions", body
    status, body = call("GET", "/v1/memories", query={"user_id": "alice", "versions": "some"})
    assert status == 422 and body["field"] == "versions", body


def test_every_relation_closed_ones_too_is_listed_and_a_filter_beside_it_is_named(stack: Stack) -> None:
    call = api_caller(load_function("api"))
    rich_user(stack, "acme", "alice")
    current = call("GET", "/v1/graph", query={"user_id": "alice"})[1]["relations"]
    listed = call("GET", "/v1/graph", query={"user_id": "alice", "relations": "all"})[1]["relations"]
    assert len(current) == 3 and len(listed) == 4
    closed = [r for r in listed if r["valid_to"]]
    assert [(r["destination"], r["closed_by"]) for r in closed] == [("Bergen", "t3")]
    oslo = next(r for r in listed if r["destination"] == "Oslo")
    assert oslo["refined_from"] == closed[0]["id"] and len(oslo["memory_ids"]) == 2
    query = {"user_id": "alice", "relations": "all", "as_of": "2026-01-01T00:00:00Z"}
    status, body = call("GET", "/v1/graph", query=query)
    assert status == 400 and body["field"] == "relations", body
    status, body = call("GET", "/v1/graph", query={"user_id": "alice", "relations": "some"})
    assert status == 422 and body["field"] == "relations", body
