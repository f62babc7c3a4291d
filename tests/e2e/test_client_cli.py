"""The `engram` command line (clients/python) against the real local stack, run as a user runs it."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from engram_client import Engram
from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import StackProcess, free_port

pytestmark = pytest.mark.e2e
ENGRAM = str(Path(sys.executable).with_name("engram"))


def engram(
    stack: StackProcess, *args: str, timeout: float = 300, columns: int = 200
) -> subprocess.CompletedProcess[str]:
    """Run the command; `timeout` only guards against a hang (a loaded shared machine is slow)."""
    env = {**os.environ, "ENGRAM_URL": stack.url, "ENGRAM_API_KEY": ACME_KEY, "COLUMNS": str(columns)}
    return subprocess.run([ENGRAM, *args], capture_output=True, text=True, env=env, timeout=timeout)


def ok(result: subprocess.CompletedProcess[str]) -> str:
    assert result.returncode == 0, result.stdout + result.stderr
    return result.stdout


def test_add_search_list_show_history_forget(stack: StackProcess) -> None:
    user = f"cli-{uuid.uuid4().hex[:8]}"
    added = ok(engram(stack, "add", "--user-id", user, "I live in Berlin"))
    assert "completed" in added and "ADD" in added and "Berlin" in added

    found = json.loads(ok(engram(stack, "search", "--user-id", user, "where do I live", "--json")))
    memory_id = found["results"][0]["id"]
    assert "Berlin" in found["results"][0]["memory"]
    assert "Berlin" in ok(engram(stack, "search", "--user-id", user, "where do I live"))

    assert memory_id in ok(engram(stack, "list", "--user-id", user))
    assert "Berlin" in ok(engram(stack, "show", memory_id))
    assert "ADD" in ok(engram(stack, "history", memory_id))

    ok(engram(stack, "forget", memory_id))
    assert json.loads(ok(engram(stack, "list", "--user-id", user, "--json"))) == []

    missing = engram(stack, "show", memory_id + "0")
    assert missing.returncode == 1 and "404" in missing.stderr


def test_an_add_that_stores_nothing_new_says_why(stack: StackProcess) -> None:
    user = f"cli-{uuid.uuid4().hex[:8]}"
    ok(engram(stack, "add", "--user-id", user, "I live in Berlin. I love pizza."))

    again = ok(engram(stack, "add", "--user-id", user, "I live in Berlin. I love pizza."))
    assert "completed" in again and "ADD" not in again
    assert "no memory changed: 2 facts found, 2 near-duplicates of current memories" in again

    chat = ok(engram(stack, "add", "--user-id", user, "Hello! Thanks a lot, how are you?"))
    assert "no memory changed: only greetings, small talk or questions, nothing to remember" in chat

    task = json.loads(ok(engram(stack, "add", "--user-id", user, "I love pizza", "--json")))
    assert task["results"] == [] and task["counts"]["duplicates"] == 1
    assert task["note"] == "no memory changed: 1 fact found, 1 near-duplicate of a current memory"

    stored = ok(engram(stack, "add", "--user-id", user, "I work at Brightwave"))
    assert "ADD" in stored and "no memory changed" not in stored


def test_tables_in_80_columns_show_ids_that_show_history_and_forget_take(stack: StackProcess) -> None:
    user = f"cli-{uuid.uuid4().hex[:8]}"
    with Engram(stack.url, ACME_KEY) as client:
        client.add("I live in Berlin", user_id=user)
        client.add("My sister Anna is a doctor and she loves climbing in the Alps every summer", user_id=user)
        stored = {m.id: m.memory for m in client.list(user)}
    assert len(stored) >= 2

    for args in (("list", "--user-id", user), ("search", "--user-id", user, "where does my sister live")):
        table = ok(engram(stack, *args, columns=80))
        assert all(len(line) <= 80 for line in table.splitlines()), table
        shown = re.findall(r"^│ (\S+)\s+│", table, flags=re.MULTILINE)
        assert sorted(shown) == sorted(stored), table  # every id whole, nothing cut with "…"

    for memory_id, text in stored.items():  # what the table shows is what the commands take
        assert text.split()[0] in ok(engram(stack, "show", memory_id, columns=80))
        assert memory_id in ok(engram(stack, "history", memory_id, columns=80))
    forgotten = shown[0]
    ok(engram(stack, "forget", forgotten, columns=80))
    assert forgotten not in ok(engram(stack, "list", "--user-id", user, columns=80))


def test_import_of_500_turns_loses_nothing_and_resumes(stack: StackProcess, tmp_path: Path) -> None:
    user = f"cli-{uuid.uuid4().hex[:8]}"
    turns = tmp_path / "turns.jsonl"
    lines = [{"role": "user", "content": f"Turn {i}: the sample number is {i * 37 % 1009}"} for i in range(500)]
    turns.write_text("\n".join(json.dumps(line) for line in lines) + "\n")

    first = engram(stack, "import", str(turns), "--user-id", user, "--no-infer", "--batch", "25", timeout=1200)
    assert "imported 20 of 20 parts" in ok(first) and "500 memories added" in first.stdout
    assert "20/20" in first.stderr  # the progress bar's final state
    with Engram(stack.url, ACME_KEY) as client:
        stored = sorted(m.memory for m in client.list(user, page_size=200))
    assert stored == sorted(line["content"] for line in lines)

    again = ok(engram(stack, "import", str(turns), "--user-id", user, "--no-infer", "--batch", "25"))
    assert "(20 done before)" in again
    with Engram(stack.url, ACME_KEY) as client:
        assert len(list(client.list(user, page_size=200))) == 500


def test_export_delete_all_import_restores_every_memory(stack: StackProcess, tmp_path: Path) -> None:
    user = f"cli-{uuid.uuid4().hex[:8]}"
    with Engram(stack.url, ACME_KEY) as client:
        lease = client.upload_attachment("lease.pdf", "application/pdf", b"%PDF lease of the Berlin flat")
        client.add(
            "I live in Berlin",
            user_id=user,
            metadata={"source": "chat", "n": 1},
            attachments=[{"attachment_id": lease.attachment_id}],
        )
        client.add("I love pizza", user_id=user, metadata={"source": "form"})
        first = client.add("My sister is called Anna", user_id=user).results[0].id
        client.update(first, memory_bank="Relationships", is_protected=True)
        before = {m.memory: m for m in client.list(user)}
    assert len(before) == 3

    exported = tmp_path / "alice.jsonl"
    ok(engram(stack, "export", "--user-id", user, "-o", str(exported)))
    records = [json.loads(line) for line in exported.read_text().splitlines()]
    versions = [r for r in records[1:] if r.get("type") != "relation"]
    assert records[0]["type"] == "engram-export" and len(versions) == 4  # the update closed a version
    assert all(r["history"] for r in versions)
    assert len(records) == 1 + len(versions) + records[0]["relations"]  # the graph's relations follow

    ok(engram(stack, "forget", "--all", "--user-id", user))
    ok(engram(stack, "import", str(exported)))

    with Engram(stack.url, ACME_KEY) as client:
        after = {m.memory: m for m in client.list(user)}
        assert sorted(after) == sorted(before)
        for text, old in before.items():
            new = after[text]
            assert new.metadata == old.metadata
            assert (new.memory_bank, new.is_protected, new.importance) == (
                old.memory_bank,
                old.is_protected,
                old.importance,
            )
            assert [(a.name, a.media_type) for a in new.attachments] == [
                (a.name, a.media_type) for a in old.attachments
            ]
        berlin = next(m for m in after.values() if "Berlin" in m.memory)
        assert client.download_attachment(berlin.attachments[0].id) == b"%PDF lease of the Berlin flat"


def test_tables_fit_the_terminal_one_line_a_memory_and_wide_shows_it_whole(stack: StackProcess) -> None:
    user = f"cli-{uuid.uuid4().hex[:8]}"
    long = "Walks the dog along the river every morning before work, rain or shine, with a thermos of tea"
    ok(engram(stack, "add", "--user-id", user, "--no-infer", long))
    memory_id = json.loads(ok(engram(stack, "list", "--user-id", user, "--json")))[0]["id"]

    for command in (("list", "--user-id", user), ("search", "--user-id", user, "dog walks")):
        shown = ok(engram(stack, *command, columns=80))
        lines = shown.splitlines()
        assert all(len(line) <= 80 for line in lines), shown
        assert sum(memory_id in line for line in lines) == 1 and "…" in shown, shown  # one line, id whole, text cut
        wide = ok(engram(stack, *command, "--wide", columns=80))
        assert memory_id in wide and "thermos of tea" in wide.replace("\n", " ").replace("│", " "), wide


def test_errors_name_the_setting_to_fix_and_the_url_tried(stack: StackProcess) -> None:
    def run(**env: str) -> subprocess.CompletedProcess[str]:
        settings = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
        settings |= {"ENGRAM_CONFIG": "/nonexistent/engram.toml", "COLUMNS": "200", **env}
        command = [ENGRAM, "list", "-u", "alice"]
        return subprocess.run(command, capture_output=True, text=True, env=settings, timeout=120)

    no_key = run(ENGRAM_URL=stack.url)
    wrong_key = run(ENGRAM_URL=stack.url, ENGRAM_API_KEY="not-a-key")
    nowhere = f"http://127.0.0.1:{free_port()}"
    no_server = run(ENGRAM_URL=nowhere, ENGRAM_API_KEY=ACME_KEY)

    for result in (no_key, wrong_key, no_server):
        assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    assert "401" in no_key.stderr and "ENGRAM_API_KEY" in no_key.stderr, no_key.stderr
    assert "403" in wrong_key.stderr and "ENGRAM_API_KEY" in wrong_key.stderr, wrong_key.stderr
    assert nowhere in no_server.stderr and "ENGRAM_URL" in no_server.stderr, no_server.stderr
