"""Import as a task, through the API and extraction handlers on moto: exported memories written as they
were (no extraction), idempotent per memory, resumable, searchable, in the user's FIFO order."""

from __future__ import annotations

import base64
from collections.abc import Iterator
from typing import Any

import pytest

from engram.domain.errors import IndexUnavailableError
from tests.integration.stack import Stack, api_caller, moto_stack
from tests.integration.test_delete_all import remember, run_queued
from tests.support.handlers import load_function

# Fields that legitimately differ between a memory and its import (docs/api.md, "Export and import").
DIFFERS = {"id", "user_id", "source", "score", "source_messages"}


@pytest.fixture
def stack(monkeypatch: pytest.MonkeyPatch) -> Iterator[Stack]:
    with moto_stack(monkeypatch) as s:
        yield s


@pytest.fixture
def call(stack: Stack) -> Any:
    return api_caller(load_function("api"))


@pytest.fixture
def extraction(stack: Stack) -> Any:
    return load_function("extraction").lambda_handler


def memories(call: Any, user: str) -> dict[str, dict[str, Any]]:
    """The user's current memories by text (each text is unique in these tests)."""
    listed = call("GET", "/v1/memories", query={"user_id": user, "limit": "1000"})[1]["results"]
    return {m["memory"]: m for m in listed}


def seed_alice(stack: Stack, call: Any) -> dict[str, dict[str, Any]]:
    content = base64.b64encode(b"%PDF lease").decode()
    lease, _ = stack.container.attachments.create("acme", "lease.pdf", "application/pdf", None, content, "alice")
    remember(stack, "alice", ["Works at Siemens", "Prefers window seats on trains", "Sister is called Anna"])
    remember(stack, "alice", ["Signed the lease in March"], [lease.id])
    by_text = memories(call, "alice")
    patches = {
        "Works at Siemens": {"memory_bank": "Work", "importance": 0.8, "metadata": {"source": "hr", "n": 3}},
        "Prefers window seats on trains": {"memory_bank": "Interests", "importance": 0.65, "is_protected": True},
        "Sister is called Anna": {"memory_bank": "Relationships", "expires_at": "2099-01-01T00:00:00+00:00"},
    }
    for text, patch in patches.items():
        assert call("PATCH", f"/v1/memories/{by_text[text]['id']}", patch)[0] == 200
    return memories(call, "alice")


def import_body(user: str, exported: dict[str, dict[str, Any]], **extra: Any) -> dict[str, Any]:
    return {"user_id": user, "memories": list(exported.values()), **extra}


def imported(call: Any, extraction: Any, stack: Stack, body: dict[str, Any]) -> dict[str, Any]:
    status, accepted = call("POST", "/v1/memories/import", body)
    assert status == 202, accepted
    run_queued(stack, extraction)
    task: dict[str, Any] = call("GET", f"/v1/tasks/{accepted['task_id']}")[1]
    assert task["kind"] == "import" and task["status"] == "completed", task
    return task


def test_import_writes_every_field_as_exported_searchably_and_once(call: Any, stack: Stack, extraction: Any) -> None:
    alice = seed_alice(stack, call)
    task = imported(call, extraction, stack, import_body("bob", alice))
    assert task["counts"] == {"memories": 4, "added": 4, "skipped": 0}
    assert stack.llm.calls == []  # no extraction, no reconciliation

    bob = memories(call, "bob")
    assert sorted(bob) == sorted(alice)
    for text, old in alice.items():
        new = bob[text]
        assert {k: v for k, v in new.items() if k not in DIFFERS} == {
            k: v for k, v in old.items() if k not in DIFFERS
        }, text
        assert new["user_id"] == "bob" and new["id"] != old["id"]
        assert new["source"]["task_id"] == task["task_id"]
        history = call("GET", f"/v1/memories/{new['id']}/history")[1]["results"]
        assert [(h["event"], h["actor"], h["note"]) for h in history] == [("ADD", "import", "imported")]
    # Indexed as any memory: searchable, and the index holds exactly bob's current memories.
    hits = call("POST", "/v1/memories/search", {"user_id": "bob", "query": "Siemens"})[1]["results"]
    assert hits[0]["memory"] == "Works at Siemens" and hits[0]["memory_bank"] == "Work"
    assert stack.container.index.ids("acme", "bob") == {m["id"] for m in bob.values()}
    # The attachment is held by the imported memory too.
    lease = bob["Signed the lease in March"]["attachments"][0]["id"]
    assert bob["Signed the lease in March"]["id"] in call("GET", f"/v1/attachments/{lease}")[1]["memory_ids"]
    # Its source is the import task, whose input is no conversation: include=source answers without one.
    shown = call("GET", f"/v1/memories/{bob['Works at Siemens']['id']}", query={"include": "source"})
    assert shown[0] == 200 and shown[1]["source_messages"] is None

    again = imported(call, extraction, stack, import_body("bob", bob))
    assert again["counts"] == {"memories": 4, "added": 0, "skipped": 4}
    assert len(memories(call, "bob")) == 4
    # An export imported back into the user it came from: every memory is there already.
    home = imported(call, extraction, stack, import_body("alice", alice))
    assert home["counts"] == {"memories": 4, "added": 0, "skipped": 4}
    assert memories(call, "alice") == alice


def test_reimport_after_delete_all_restores_and_import_is_per_tenant(call: Any, stack: Stack, extraction: Any) -> None:
    remember(stack, "alice", ["Lives in Berlin", "Likes pizza"])
    exported = memories(call, "alice")
    assert imported(call, extraction, stack, import_body("bob", exported))["counts"]["added"] == 2
    # Queued in bob's FIFO group: the delete-all after the first import, then the second import.
    assert call("DELETE", "/v1/memories", query={"user_id": "bob"})[0] == 202
    task = imported(call, extraction, stack, import_body("bob", exported))
    assert task["counts"] == {"memories": 2, "added": 2, "skipped": 0}
    assert sorted(memories(call, "bob")) == ["Likes pizza", "Lives in Berlin"]
    assert imported(call, extraction, stack, import_body("bob", exported))["counts"]["skipped"] == 2

    # The same file into the same user name of another tenant is that tenant's own import.
    status, accepted = call("POST", "/v1/memories/import", import_body("bob", exported), tenant="globex")
    assert status == 202
    run_queued(stack, extraction)
    globex = call("GET", f"/v1/tasks/{accepted['task_id']}", tenant="globex")[1]
    assert globex["counts"] == {"memories": 2, "added": 2, "skipped": 0}
    assert call("GET", f"/v1/tasks/{accepted['task_id']}")[0] == 404
    assert len(memories(call, "bob")) == 2


def test_import_interrupted_half_way_resumes_without_duplicates(
    call: Any, stack: Stack, extraction: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    remember(stack, "alice", [f"Alice fact number {i}" for i in range(25)])
    exported = memories(call, "alice")
    status, accepted = call("POST", "/v1/memories/import", import_body("bob", exported))
    assert status == 202
    stack.sqs.purge_queue(QueueUrl=stack.queue_url)  # delivered by hand below
    worker = stack.container.worker
    assert worker.importer is not None
    worker.importer.batch_size = 10
    index, upsert, calls = stack.container.index, stack.container.index.upsert, []

    def dies_on_second_batch(docs: Any) -> None:
        calls.append(len(docs))
        if len(calls) == 2:  # the second batch is in DynamoDB, not in the index: the try dies
            raise IndexUnavailableError("index down")
        upsert(docs)

    monkeypatch.setattr(index, "upsert", dies_on_second_batch)
    with pytest.raises(IndexUnavailableError):
        worker.process("acme", accepted["task_id"])
    half = call("GET", f"/v1/tasks/{accepted['task_id']}")[1]
    assert half["counts"] == {"memories": 25, "added": 10, "skipped": 0} and half["status"] == "queued"

    worker.process("acme", accepted["task_id"])  # redelivered
    done = call("GET", f"/v1/tasks/{accepted['task_id']}")[1]
    assert done["status"] == "completed" and done["counts"] == {"memories": 25, "added": 25, "skipped": 0}
    bob = memories(call, "bob")
    assert sorted(bob) == sorted(exported)
    assert len(call("GET", "/v1/memories", query={"user_id": "bob", "limit": "1000"})[1]["results"]) == 25
    assert stack.container.index.ids("acme", "bob") == {m["id"] for m in bob.values()}


def test_the_same_memory_twice_in_one_import_is_stored_once(call: Any, stack: Stack, extraction: Any) -> None:
    one = {"memory": "Lives in Berlin", "memory_bank": "Personal", "importance": 0.7}
    task = imported(call, extraction, stack, {"user_id": "bob", "memories": [one, {"memory": "Likes tea"}, one]})
    assert task["counts"] == {"memories": 3, "added": 2, "skipped": 1}
    assert sorted(memories(call, "bob")) == ["Likes tea", "Lives in Berlin"]


@pytest.mark.parametrize(
    ("memories_field", "field"),
    [
        ([{"memory": m} for m in "abc"] + [{"memory": "d", "importance": 1.5}], "memories.3.importance"),
        ([{"memory": "a", "memory_bank": "Hobbies"}], "memories.0.memory_bank"),
        (
            [{"memory": "a", "valid_from": "2026-02-01T00:00:00+00:00", "valid_to": "2026-01-01T00:00:00+00:00"}],
            "memories.0.valid_to",
        ),
        ([{"memory": "a", "created_at": "2026-01-01T00:00:00"}], "memories.0.created_at"),  # no zone
        ([{"memory": ""}], "memories.0.memory"),
        ([{"memory": "a", "source": {"role": "system"}}], "memories.0.source.role"),  # no memory is a system's
        ([{"memory": "a", "outdated_by": ["x" * 300]}], "memories.0.outdated_by.0"),
        ([{"memory": "a", "metadata": {"n": float("1e200")}}], "memories.0.metadata"),
        ([{"memory": f"m{i}"} for i in range(501)], "memories"),
        ([], "memories"),
    ],
)
def test_bad_import_is_422_naming_the_field_and_queues_nothing(
    call: Any, stack: Stack, memories_field: list[dict[str, Any]], field: str
) -> None:
    status, body = call("POST", "/v1/memories/import", {"user_id": "bob", "memories": memories_field})
    assert status == 422 and field in [d["field"] for d in body["detail"]], body
    assert stack.queued() == []


def test_import_naming_an_unknown_or_other_tenants_attachment_is_refused(call: Any, stack: Stack) -> None:
    content = base64.b64encode(b"globex secret").decode()
    theirs, _ = stack.container.attachments.create("globex", "x.pdf", "application/pdf", None, content, "carol")
    for attachment_id in (theirs.id, "no-such-attachment"):
        held = {"memory": "b", "attachments": [{"id": attachment_id}]}
        body = {"user_id": "bob", "memories": [{"memory": "a"}, held]}
        status, answer = call("POST", "/v1/memories/import", body)
        assert status == 400 and answer["field"] == "memories.1.attachments.0.id", answer
    assert stack.queued() == []


def relation_line(n: int, **more: Any) -> dict[str, Any]:
    """A graph relation as `engram export` writes it."""
    ends = {
        "source_entity": {"id": "user-alice", "name": "alice", "type": "user"},
        "destination_entity": {"id": f"e{n}", "name": f"Place {n}", "type": "city"},
    }
    return {
        "type": "relation",
        "id": f"r{n}",
        "relation": "visited",
        **ends,
        "valid_from": "2026-01-01T00:00:00Z",
    } | more


@pytest.mark.parametrize(
    ("relations", "field"),
    [
        ([relation_line(i) for i in range(1001)], "relations"),
        ([relation_line(0, valid_to="2025-01-01T00:00:00Z")], "relations.0.valid_to"),
        ([relation_line(0, relation="")], "relations.0.relation"),
        ([relation_line(0, source_entity={"id": "x", "name": "a" * 501})], "relations.0.source_entity.name"),
        ([relation_line(0, memory_ids=["m"] * 1001)], "relations.0.memory_ids"),
        ([{k: v for k, v in relation_line(0).items() if k != "valid_from"}], "relations.0.valid_from"),
    ],
)
def test_bad_relations_are_422_naming_the_field_and_queue_nothing(
    call: Any, stack: Stack, relations: list[dict[str, Any]], field: str
) -> None:
    status, body = call("POST", "/v1/memories/import", {"user_id": "bob", "relations": relations})
    assert status == 422 and field in [d["field"] for d in body["detail"]], body
    assert stack.queued() == []


def test_relations_alone_are_imported_into_the_users_graph_once(call: Any, stack: Stack, extraction: Any) -> None:
    body = {"user_id": "bob", "relations": [relation_line(0), relation_line(1, memory_ids=["m1"])]}
    task = imported(call, extraction, stack, body)
    assert task["counts"] == {
        "memories": 0,
        "added": 0,
        "skipped": 0,
        "relations": 2,
        "relations_added": 2,
        "relations_skipped": 0,
    }
    graph = call("GET", "/v1/graph", query={"user_id": "bob"})[1]
    assert sorted((r["source"], r["relation"], r["destination"]) for r in graph["relations"]) == [
        ("bob", "visited", "Place 0"),
        ("bob", "visited", "Place 1"),
    ]
    assert sorted(e["name"] for e in graph["entities"]) == ["Place 0", "Place 1", "bob"]
    again = imported(call, extraction, stack, body)
    assert (again["counts"]["relations_added"], again["counts"]["relations_skipped"]) == (0, 2)
    # Another export's relation between the same two entities, which bob holds current: not doubled.
    other = imported(call, extraction, stack, {"user_id": "bob", "relations": [relation_line(0, id="theirs")]})
    assert (other["counts"]["relations_added"], other["counts"]["relations_skipped"]) == (0, 1)
    graph = call("GET", "/v1/graph", query={"user_id": "bob", "relations": "all"})[1]
    assert (len(graph["relations"]), len(graph["entities"])) == (2, 3)


def test_an_import_redelivered_after_its_relations_counts_them_once(
    call: Any, stack: Stack, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = {"user_id": "bob", "relations": [relation_line(0), relation_line(1)]}
    status, accepted = call("POST", "/v1/memories/import", body)
    assert status == 202, accepted
    stack.sqs.purge_queue(QueueUrl=stack.queue_url)  # delivered by hand below
    worker = stack.container.worker
    assert worker.users is not None

    def dies_at_the_end(*_: Any) -> None:  # the relations are written, the task is not finished
        raise IndexUnavailableError("down")

    touch = worker.users.touch
    monkeypatch.setattr(worker.users, "touch", dies_at_the_end)
    with pytest.raises(IndexUnavailableError):
        worker.process("acme", accepted["task_id"])
    monkeypatch.setattr(worker.users, "touch", touch)
    worker.process("acme", accepted["task_id"])  # redelivered
    done = call("GET", f"/v1/tasks/{accepted['task_id']}")[1]
    assert done["status"] == "completed", done
    assert (done["counts"]["relations_added"], done["counts"]["relations_skipped"]) == (2, 0)
    assert len(call("GET", "/v1/graph", query={"user_id": "bob", "relations": "all"})[1]["relations"]) == 2
