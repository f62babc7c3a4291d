"""`engram export` / `engram import` against the real local stack: a lossless round trip through
POST /v1/memories/import, exact counts, and re-imports that add nothing."""

from __future__ import annotations

import json
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from engram_client import Engram
from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import StackProcess
from tests.e2e.test_client_cli import engram, ok

pytestmark = pytest.mark.e2e

# What legitimately differs after export -> import -> export (docs/api.md, "Export and import"): the ids, the
# user, and the record of this deployment's own handling (history, source task and message index).
DIFFERS = {"id", "user_id", "history", "source"}


def read_export(path: Path) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    header, *lines = path.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    return json.loads(header), {r["memory"]: r for r in records}


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
    assert (header["type"], header["version"], header["count"]) == ("engram-export", 2, count)
    assert all(r["source"]["at"] for r in exported.values())  # when each memory's message arrived

    # The count is the import task's: every memory once ("33 memories added" for 9 was a bug).
    done = ok(engram(stack, "import", str(first), "--user-id", bob))
    assert f"imported {count} memories in 1 parts (0 done before): {count} added, 0 skipped" in done

    second = tmp_path / "bob.jsonl"
    ok(engram(stack, "export", "--user-id", bob, "-o", str(second)))
    _, again = read_export(second)
    assert sorted(again) == sorted(exported)
    for text, old in exported.items():
        new = again[text]
        assert sorted(new) == sorted(old)
        for name in old.keys() - DIFFERS - {"attachments"}:
            assert new[name] == old[name], (text, name)
        assert _uploads(new) == _uploads(old)
        assert new["user_id"] == bob and new["id"] != old["id"]
        assert _origin(new) == _origin(old)
    siemens = next(r for t, r in again.items() if "Siemens" in t)
    assert (siemens["memory_bank"], siemens["importance"], siemens["is_protected"]) == ("Work", 0.8, True)
    assert siemens["fact_key"] and siemens["fact_value"]
    with Engram(stack.url, ACME_KEY) as client:  # searchable as any memory
        assert "Siemens" in client.search("where does she work", user_id=bob).results[0].memory

    # Again into the same user: the resume state says it is done; without it the server skips each.
    rerun = ok(engram(stack, "import", str(first), "--user-id", bob))
    assert "(1 done before): 0 added, 0 skipped" in rerun
    first.with_name(first.name + ".engram-import").unlink()
    rerun = ok(engram(stack, "import", str(first), "--user-id", bob))
    assert f"0 added, {count} skipped" in rerun
    # Back into the user it was exported from: nothing doubles.
    assert f"0 added, {count} skipped" in ok(engram(stack, "import", str(first)))
    # Into another user, with bob's resume state beside the file: not skipped.
    assert f"{count} added, 0 skipped" in ok(engram(stack, "import", str(first), "--user-id", carol))
    with Engram(stack.url, ACME_KEY) as client:
        assert [len(list(client.list(u))) for u in (alice, bob, carol)] == [count] * 3


def _uploads(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The attachments but their ids and upload times (new uploads in the target)."""
    return [{k: v for k, v in a.items() if k not in ("id", "created_at")} for a in record["attachments"]]


def _origin(record: dict[str, Any]) -> tuple[str | None, datetime | None]:
    """The role and time of the message the memory came from (kept by the import)."""
    at = record["source"]["at"]
    return record["source"]["role"], datetime.fromisoformat(at) if at else None
