"""The memory policy through `make run`'s stack: set with the SDK and the CLI, applied by the worker to the
tenant's adds (offline rules), and to no other tenant's. The session's stack is shared: the tenant's
configuration is put back empty after each test (the local stack is one container: seen at once)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram_client import Engram, EngramError
from tests.e2e.conftest import ACME_KEY, GLOBEX_KEY
from tests.e2e.stack_process import StackProcess
from tests.e2e.test_client_cli import engram, ok

pytestmark = pytest.mark.e2e
PEANUTS = "I'm allergic to peanuts and I live in Berlin"


@pytest.fixture
def client(stack: StackProcess) -> Iterator[Engram]:
    with Engram(stack.url, ACME_KEY) as sdk:
        try:
            yield sdk
        finally:
            sdk.put_config({})


def test_an_excluded_bank_is_stored_nowhere_for_this_tenant_only(stack: StackProcess, client: Engram) -> None:
    user = f"policy-{uuid.uuid4().hex[:8]}"
    config = client.put_config({"exclude": ["Health"], "instructions": "Never store health details."})
    assert client.get_config() == config and config.exclude == ["Health"]

    task = client.add(PEANUTS, user_id=user)
    assert task.status == "completed" and task.counts["excluded"] == 1
    assert [(s.text, s.reason) for s in task.skipped] == [("I'm allergic to peanuts", "excluded: Health")]
    kept = [m.memory for m in client.list(user)]
    assert kept == ["Lives in Berlin"]
    source = client.get(client.search("where do I live", user_id=user).results[0].id, include_source=True)
    assert "peanut" not in json.dumps(source.model_dump(mode="json")).lower()

    # this add's own exclude (empty) replaces the tenant's
    other_user = f"policy-{uuid.uuid4().hex[:8]}"
    client.add(PEANUTS, user_id=other_user, exclude=[])
    assert len(list(client.list(other_user))) == 2

    with Engram(stack.url, GLOBEX_KEY) as globex:
        assert globex.get_config().exclude == []
        assert globex.add(PEANUTS, user_id=user).skipped == []
        assert sorted(m.memory for m in globex.list(user)) == ["Allergic to peanuts", "Lives in Berlin"]


def test_include_keeps_only_the_banks_named(client: Engram) -> None:
    user = f"policy-{uuid.uuid4().hex[:8]}"
    client.put_config({"include": ["Events"]})
    task = client.add("I'm flying to Tokyo next month and I live in Berlin", user_id=user)
    assert [m.memory_bank for m in client.list(user)] == ["Events"]
    assert [s.reason for s in task.skipped] == ["not included"]


def test_the_cli_sets_and_gets_the_config_and_a_bad_prompt_names_the_field(
    stack: StackProcess, client: Engram, tmp_path: Path
) -> None:
    ok(engram(stack, "config", "set", "--exclude", "Health", "--exclude", "diet", "--instructions", "Be brief."))
    shown = json.loads(ok(engram(stack, "config", "get")))
    assert (shown["exclude"], shown["instructions"]) == (["Health", "diet"], "Be brief.")
    bad = tmp_path / "extract.txt"
    bad.write_text("List what the user said.", encoding="utf-8")
    refused = engram(stack, "config", "set", "--prompt", f"extraction={bad}")
    assert refused.returncode == 1 and "422" in refused.stderr and "prompts.extraction" in refused.stderr
    assert json.loads(ok(engram(stack, "config", "get")))["prompts"]["extraction"] is None
    with pytest.raises(EngramError):
        client.put_config({"include": ["x" * 101]})
