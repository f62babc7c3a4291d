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
    stored = client.get_config()
    assert stored.model_dump() == {k: v for k, v in config.model_dump().items() if k != "warnings"}
    assert stored.exclude == ["Health"]

    task = client.add(PEANUTS, user_id=user)
    assert task.status == "completed" and task.counts["excluded"] == 1
    # the task says what was cut by its size, never by its words
    assert [(s.text, s.reason) for s in task.skipped] == [("a clause of 23 characters", "excluded: Health")]
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


# --- issue 33: a person's own words about their health, with `exclude: ["Health"]` and no LLM ----------
HEALTH_WORDS = ("adhd", "diagnos", "therapist", "okafor", "fluoxetine", "20mg", "meds", "foggy", "psychiatr")
SAID = (
    "Quick update on me: the doctor finally diagnosed me with ADHD last week. "
    "The new job at Spotify is going great though, my team is lovely.",
    "I've been seeing a therapist called Dr Okafor every Tuesday since the breakup, "
    "and my sister Maya is visiting from Lisbon next month.",
    "I take 20mg of fluoxetine every morning with breakfast, then I walk the dog before work.",
    "Honestly the meds make me a bit foggy but I'm still running 5k on Sundays.",
)
# kept as given (infer: false), and long enough to be kept in parts: the health sentence sits in the middle
LONG = (
    "We spent the whole afternoon repainting the garden fence a dark green colour. " * 20
    + "My psychiatrist switched me to a new prescription for the panic attacks. "
    + "The neighbours came over later and we grilled halloumi until it got dark outside. " * 20
)


def _health_in(value: object) -> list[str]:
    text = json.dumps(value, default=str).lower()
    return [word for word in HEALTH_WORDS if word in text]


def test_health_said_in_a_persons_own_words_is_stored_nowhere_with_exclude_health(client: Engram) -> None:
    user = f"policy-{uuid.uuid4().hex[:8]}"
    answer = client.put_config({"exclude": ["Health"], "instructions": "Never store medical details."})
    warnings = answer.model_dump().get("warnings") or []
    assert any("instructions need an LLM" in w for w in warnings), answer  # no LLM here: said, not ignored
    assert client.get_config().instructions == "Never store medical details."  # stored all the same

    tasks = [client.add(text, user_id=user) for text in SAID]
    tasks.append(client.add(LONG, user_id=user, infer=False))
    assert all(t.status == "completed" for t in tasks)
    assert all("need an LLM" in (t.note or "") for t in tasks), [t.note for t in tasks]
    assert all(t.counts.get("excluded", 0) >= 1 for t in tasks), [t.counts for t in tasks]

    memories = list(client.list(user))
    everything: list[object] = [m.model_dump(mode="json") for m in memories]
    for memory in memories:
        everything.append(client.get(memory.id, include_source=True).model_dump(mode="json"))
        everything += [h.model_dump(mode="json") for h in client.history(memory.id)]
    for query in ("ADHD diagnosis", "my therapist", "what medication do I take", "fluoxetine", "psychiatrist"):
        everything.append(client.search(query, user_id=user).model_dump(mode="json"))
    everything += [client.task(t.task_id).model_dump(mode="json") for t in tasks]
    everything.append(client.graph(user).model_dump(mode="json"))
    assert _health_in(everything) == []

    kept = " ".join(m.memory for m in memories).lower()
    for said in ("spotify", "maya", "dog", "5k", "fence", "halloumi"):
        assert said in kept, (said, [m.memory for m in memories])
