"""`engram export` / `engram import` against the real local stack: a lossless round trip through
POST /v1/memories/import, exact counts, and re-imports that add nothing."""

from __future__ import annotations

import json
import os
import subprocess
import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

import boto3
import pytest

from engram.adapters.dynamo.attachment_store import DynamoAttachmentStore
from engram.adapters.dynamo.fact_store import DynamoFactStore
from engram.adapters.dynamo.graph_store import DynamoGraphStore
from engram.domain.graph import Entity, Relation
from engram.domain.models import Fact
from engram_client import Engram
from engram_tools.local.names import physical_name
from tests.e2e.conftest import ACME_KEY, GLOBEX_KEY
from tests.e2e.stack_process import Api, StackProcess
from tests.e2e.test_client_cli import ENGRAM, engram, ok
from tests.support.round_trip import Key, Shown, by_version, graph_lost, histories_lost, lost_by_version

pytestmark = pytest.mark.e2e

# What legitimately differs after export -> import -> export (docs/api.md, "Export and import"): the ids, the
# user, and the record of this deployment's own handling (history, source task and message index).
DIFFERS = {"id", "user_id", "history", "source"}
# ids of other memories: translated (a statement's outdated_by too)
REFERENCES = {"episode_id", "outdated_by", "summarized_from", "statements"}


def read_export(path: Path) -> tuple[dict[str, Any], dict[tuple[str, int], dict[str, Any]]]:
    """The header, and each exported memory version by its text and version (unique here)."""
    header, *lines = path.read_text(encoding="utf-8").splitlines()
    records = [r for line in lines if "type" not in (r := json.loads(line))]
    return json.loads(header), {(r["memory"], r["version"]): r for r in records}


def read_relations(path: Path, user: str) -> dict[tuple[str, str, str], dict[str, Any]]:
    """The exported graph relations by source, kind and destination (the user's own entity as "user")."""
    _, *lines = path.read_text(encoding="utf-8").splitlines()
    relations = [r for line in lines if (r := json.loads(line)).get("type") == "relation"]

    def name(n: str) -> str:
        return "user" if n == user else n

    return {(name(r["source"]), r["relation"], name(r["destination"])): r for r in relations}


def seed(stack: StackProcess, user: str) -> int:
    with Engram(stack.url, ACME_KEY) as client:
        lease = client.upload_attachment("lease.pdf", "application/pdf", b"%PDF lease of the Berlin flat")
        client.add("I work at Siemens", user_id=user)  # extracted: a fact with its key and value
        client.add(
            "Signed the lease of the Berlin flat",
            user_id=user,
            infer=False,
            metadata={"source": "chat", "n": 1},
            attachments=[{"attachment_id": lease.attachment_id}],
        )
        texts = [f"Prefers window seats on trains, note {i}" for i in range(6)]
        client.add([{"role": "user", "content": t} for t in texts], user_id=user, infer=False, deduplicate=False)
        by_text = {m.memory: m for m in client.list(user)}
        siemens = next(m for m in by_text.values() if "Siemens" in m.memory)
        client.update(siemens.id, memory_bank="Work", importance=0.8, is_protected=True, metadata={"hr": "yes"})
        for i, text in enumerate(texts[:3]):
            client.update(by_text[text].id, memory_bank="Interests", importance=0.3 + i / 10)
        client._http.patch(  # expires_at is not an SDK option
            f"/v1/memories/{by_text[texts[3]].id}",
            json={"expires_at": "2099-06-01T00:00:00+00:00"},
            headers={"x-api-key": ACME_KEY},
        ).raise_for_status()
        return len(by_text)


def test_export_import_export_is_identical_and_counts_are_exact(stack: StackProcess, tmp_path: Path) -> None:
    alice, bob, carol = (f"imp-{name}-{uuid.uuid4().hex[:6]}" for name in ("alice", "bob", "carol"))
    count = seed(stack, alice)
    first = tmp_path / "alice.jsonl"
    ok(engram(stack, "export", "--user-id", alice, "-o", str(first)))
    header, exported = read_export(first)
    lines = len(exported)  # every version: the corrections closed earlier ones
    assert (header["type"], header["version"], header["count"]) == ("engram-export", 5, lines)
    relations = read_relations(first, alice)
    assert header["relations"] == len(relations) and ("user", "works_at", "Siemens") in relations, relations
    assert len([r for r in exported.values() if r["valid_to"] is None]) == count < lines
    assert all(r["source"]["at"] for r in exported.values())  # when each memory's message arrived

    # The count is the import task's: every version once ("33 memories added" for 9 was a bug).
    done = ok(engram(stack, "import", str(first), "--user-id", bob))
    assert f"imported {lines} memories in 2 parts (0 done before): {lines} added, 0 skipped" in done
    assert f"imported {len(relations)} graph relations: {len(relations)} added, 0 skipped" in done

    second = tmp_path / "bob.jsonl"
    ok(engram(stack, "export", "--user-id", bob, "-o", str(second)))
    _, again = read_export(second)
    assert sorted(again) == sorted(exported)
    ids = {old["id"]: again[key]["id"] for key, old in exported.items()}
    for text, old in exported.items():
        new = again[text]
        assert sorted(new) == sorted(old)
        for name in old.keys() - DIFFERS - REFERENCES - {"attachments"}:
            assert new[name] == old[name], (text, name)
        assert new["episode_id"] == (ids[old["episode_id"]] if old["episode_id"] else None), text
        assert new["outdated_by"] == [ids[i] for i in old["outdated_by"]], text
        assert new["summarized_from"] == [ids[i] for i in old["summarized_from"]], text
        translated = [{**st, "outdated_by": ids.get(st["outdated_by"])} for st in old["statements"]]
        assert new["statements"] == translated, text
        assert _uploads(new) == _uploads(old)
        assert new["user_id"] == bob and new["id"] != old["id"]
        assert _origin(new) == _origin(old)
    # The graph: every relation with its fields, the memories it links translated to bob's.
    assert sorted(read_relations(second, bob)) == sorted(relations)
    for key, new in read_relations(second, bob).items():
        old = relations[key]
        for name in old.keys() - {"id", "source", "destination", "source_entity", "destination_entity", "task_id"}:
            assert new[name] == ([ids[m] for m in old[name]] if name == "memory_ids" else old[name]), (key, name)
        for end in ("source_entity", "destination_entity"):
            kept = {"type", "aliases", "created_at", "updated_at"} | ({"name"} if old[end]["type"] != "user" else set())
            assert {k: new[end][k] for k in kept} == {k: old[end][k] for k in kept}, (key, end)
    siemens = next(r for r in again.values() if "Siemens" in r["memory"] and r["valid_to"] is None)
    assert (siemens["memory_bank"], siemens["importance"], siemens["is_protected"]) == ("Work", 0.8, True)
    assert siemens["fact_key"] and siemens["fact_value"]
    with Engram(stack.url, ACME_KEY) as client:  # searchable as any memory
        assert "Siemens" in client.search("where does she work", user_id=bob).results[0].memory

    # Again into the same user: the resume state says it is done; without it the server skips each.
    rerun = ok(engram(stack, "import", str(first), "--user-id", bob))
    assert "(2 done before): 0 added, 0 skipped" in rerun
    first.with_name(first.name + ".engram-import").unlink()
    rerun = ok(engram(stack, "import", str(first), "--user-id", bob))
    assert f"0 added, {lines} skipped" in rerun
    assert f"0 added, {len(relations)} skipped" in rerun
    # Back into the user it was exported from: nothing doubles.
    home = ok(engram(stack, "import", str(first)))
    assert f"0 added, {lines} skipped" in home and f"0 added, {len(relations)} skipped" in home
    # Into another user, with bob's resume state beside the file: not skipped.
    assert f"{lines} added, 0 skipped" in ok(engram(stack, "import", str(first), "--user-id", carol))
    with Engram(stack.url, ACME_KEY) as client:
        assert [len(list(client.list(u))) for u in (alice, bob, carol)] == [count] * 3


def _uploads(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The attachments but their ids and upload times (new uploads in the target)."""
    return [{k: v for k, v in a.items() if k not in ("id", "created_at")} for a in record["attachments"]]


def _origin(record: dict[str, Any]) -> tuple[str | None, datetime | None]:
    """The role and time of the message the memory came from (kept by the import)."""
    at = record["source"]["at"]
    return record["source"]["role"], datetime.fromisoformat(at) if at else None


def test_a_whole_user_comes_back_in_another_tenant_field_by_field(stack: StackProcess, tmp_path: Path) -> None:
    """Issue 46: four outdated memories before an export, none after its import. Every field of every
    stored memory version, current and closed (Fact.model_fields), read from the memory table before and
    after, ids mapped."""
    alice, bob = f"whole-{uuid.uuid4().hex[:6]}", f"whole-{uuid.uuid4().hex[:6]}"
    acme = Api(stack, ACME_KEY)
    for text, at in [
        ("ugh, the commute from my flat in Leeds is killing me, 90 mins each way", "2025-01-10T09:00:00Z"),
        ("I live in Manchester now, way better", "2025-03-02T09:00:00Z"),
        ("I work at Siemens as an engineer", "2025-03-03T09:00:00Z"),
    ]:
        message = {"role": "user", "name": "Alice", "content": text, "created_at": at}
        task = acme.wait(
            acme.request("POST", "/v1/memories", {"user_id": alice, "messages": [message]}).json()["task_id"]
        )
        assert task["status"] == "completed", task
    with Engram(stack.url, ACME_KEY) as client:
        lease = client.upload_attachment("lease.pdf", "application/pdf", b"%PDF lease", "the flat's lease")
        told = [{"role": "assistant", "name": "Coach", "content": "Remember to renew the lease in May"}]
        client.add(told, user_id=alice, infer=False, attachments=[{"attachment_id": lease.attachment_id}])
        client.add("I play tennis on Sundays", user_id=alice, infer=False)
        by_text = {m.memory: m for m in client.list(alice)}
        client.delete(by_text["I play tennis on Sundays"].id)  # forgotten: closed, exported closed
        siemens = next(m for t, m in by_text.items() if "Siemens" in t and m.kind == "fact")
        renew = by_text["Remember to renew the lease in May"]
        client.update(siemens.id, memory_bank="Work", is_protected=True)
        client.update(renew.id, "Renew the lease in May")  # version 2, corrected by a person
    patched = acme.request("PATCH", f"/v1/memories/{renew.id}", {"expires_at": "2099-01-01T00:00:00+00:00"})
    assert patched.status_code == 200, patched.text

    before = {key: with_time_said(acme, fact) for key, fact in stored(stack, "acme", alice).items()}
    graph_before = stored_graph(stack, "acme", alice)
    assert len(graph_before[1]) >= 2, graph_before  # where she lives and works, as the rules read it
    assert len([f for f in before.values() if f.outdated_by]) >= 1, before  # the Leeds message
    first = tmp_path / "whole.jsonl"
    ok(engram(stack, "export", "--user-id", alice, "-o", str(first)))
    env = {**os.environ, "ENGRAM_URL": stack.url, "ENGRAM_API_KEY": GLOBEX_KEY}
    done = subprocess.run([ENGRAM, "import", str(first), "--user-id", bob], capture_output=True, text=True, env=env)
    assert done.returncode == 0 and f"{len(before)} added, 0 skipped" in done.stdout, done.stdout + done.stderr

    after = stored(stack, "globex", bob)
    assert sorted(after) == sorted(before)
    targets = {"tenant_id": "globex", "user_id": bob, "embedding_model": next(iter(before.values())).embedding_model}
    assert lost_by_version(before, after, targets, attachments_of(stack)) == {key: [] for key in before}
    history = DynamoFactStore(_moto(stack, "dynamodb"), physical_name("MemoryTable")).history
    assert histories_lost(before, after, targets, history) == {f.id: [] for f in before.values()}
    assert sorted(k for k, f in after.items() if f.outdated_by) == sorted(k for k, f in before.items() if f.outdated_by)
    assert sorted(k for k, f in after.items() if f.valid_to) == sorted(k for k, f in before.items() if f.valid_to)
    memory_ids = {old.id: after[key].id for key, old in before.items()}
    lost = graph_lost(graph_before, stored_graph(stack, "globex", bob), memory_ids, targets)
    assert {k: v for k, v in lost.items() if v} == {}, lost


def stored_graph(stack: StackProcess, tenant: str, user: str) -> tuple[list[Entity], list[Relation]]:
    """The user's entities and relations, closed ones too, as the memory table holds them."""
    graph = DynamoGraphStore(_moto(stack, "dynamodb"), physical_name("MemoryTable"))
    entities = graph.entities(tenant, user, 1000).entities
    return entities, graph.relations(tenant, user, 1000, include_closed=True).relations


def with_time_said(api: Api, fact: Fact) -> Fact:
    """An add's memory keeps no `source.at`: its message arrived when its task was created, which the
    export writes down (the import's task is not the original)."""
    if fact.source is None or fact.source.at is not None:
        return fact
    task = api.request("GET", f"/v1/tasks/{fact.source.task_id}").json()
    at = datetime.fromisoformat(task["created_at"])
    return fact.model_copy(update={"source": fact.source.model_copy(update={"at": at})})


def _moto(stack: StackProcess, service: str) -> Any:
    return boto3.client(
        service,
        endpoint_url=stack.moto_endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def stored(stack: StackProcess, tenant: str, user: str) -> dict[Key, Fact]:
    """Every version of the user's memories, current and closed, as the memory table holds them."""
    facts = DynamoFactStore(_moto(stack, "dynamodb"), physical_name("MemoryTable"))
    return by_version(facts.list_versions(tenant, user, limit=1000).items)


def attachments_of(stack: StackProcess) -> Callable[[str], Shown]:
    store = DynamoAttachmentStore(_moto(stack, "dynamodb"), physical_name("MemoryTable"))

    def of_tenant(tenant: str) -> Shown:
        def shown(ids: Sequence[str]) -> list[tuple[Any, ...]]:
            found = store.get_many(tenant, list(ids))
            return [(a.name, a.media_type, a.description, a.size, a.checksum) for a in map(found.get, ids) if a]

        return shown

    return of_tenant
