"""The maintenance function over moto DynamoDB: the scanner finds scopes, repair fixes the index."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from engram.adapters.dynamo.fact_scanner import DynamoFactScanner
from engram.domain.models import Attachment, Event, Fact
from engram.writes.unit_of_work import history_event, index_doc
from tests.integration.stack import Stack
from tests.support.handlers import ROOT, FakeContext, load_function

EXECUTION = "arn:aws:states:us-east-1:123456789012:execution:engram-maintenance:daily"


@pytest.fixture
def handler(stack: Stack) -> Any:
    return load_function("maintenance").lambda_handler


def remember(stack: Stack, text: str, user: str = "alice", tenant: str = "acme") -> Fact:
    """Store a fact in DynamoDB and index it, as the pipeline does."""
    fact = Fact(tenant_id=tenant, user_id=user, text=text)
    stack.container.facts.add(fact, history_event(fact, Event.ADD, None, text, "test"))
    stack.container.index.upsert([index_doc(fact, stack.container.embedder.embed([text])[0])])
    return fact


def test_repair_finds_every_scope_in_dynamodb_and_restores_a_removed_index_doc(stack: Stack, handler: Any) -> None:
    jazz, berlin = remember(stack, "Loves jazz"), remember(stack, "Lives in Berlin")
    nurse = remember(stack, "Works as a nurse", user="bob")
    opera = remember(stack, "Loves opera", tenant="globex")
    index = stack.container.index
    index.delete("acme", "alice", [berlin.id])  # drift: the doc is gone, the fact is current
    index.upsert([index_doc(Fact(id="ghost", tenant_id="acme", user_id="bob", text="x"), [0.0] * 64)])

    report = handler({"action": "repair", "execution_id": EXECUTION}, FakeContext())

    assert report == {"action": "repair", "execution_id": EXECUTION, "scopes": 3, "reindexed": 1, "orphans_removed": 1}
    assert index.ids("acme", "alice") == {jazz.id, berlin.id}
    assert index.ids("acme", "bob") == {nurse.id}
    assert index.ids("globex", "alice") == {opera.id}
    again = handler({"action": "repair", "execution_id": EXECUTION}, FakeContext())
    assert (again["reindexed"], again["orphans_removed"]) == (0, 0)


def test_a_run_scoped_to_one_user_touches_only_that_user(stack: Stack, handler: Any) -> None:
    jazz = remember(stack, "Loves jazz")
    nurse = remember(stack, "Works as a nurse", user="bob")
    stack.container.index.delete("acme", "alice", [jazz.id])
    stack.container.index.delete("acme", "bob", [nurse.id])

    report = handler({"action": "repair", "tenant_id": "acme", "user_id": "bob"}, FakeContext())

    assert (report["scopes"], report["reindexed"]) == (1, 1)
    assert stack.container.index.ids("acme", "bob") == {nurse.id}
    assert stack.container.index.ids("acme", "alice") == set()


def test_the_scanner_lists_scopes_with_current_facts_once_and_skips_everything_else(stack: Stack) -> None:
    remember(stack, "Loves jazz")
    remember(stack, "Lives in Berlin")
    gone = remember(stack, "Likes tea", user="carol")
    stack.container.facts.close(gone, datetime.now(UTC), history_event(gone, Event.DELETE, gone.text, None, "test"))
    stack.container.attachment_store.create(
        Attachment(tenant_id="acme", user_id="dave", name="a.txt", media_type="text/plain", blob_key="k")
    )
    scanner = DynamoFactScanner(stack.dynamodb, stack.container.settings.memory_table)

    assert list(scanner.scopes()) == [("acme", "alice")]
    assert sorted(f.text for f in scanner.current("acme", "alice")) == ["Lives in Berlin", "Loves jazz"]
    assert scanner.current("acme", "carol") == []


def test_summarise_without_an_llm_is_reported_as_skipped(stack: Stack, handler: Any) -> None:
    remember(stack, "Loves jazz")

    report = handler({"action": "summarise", "execution_id": EXECUTION}, FakeContext())

    assert report["skipped"] is True and report["reason"] == "no LLM configured"
    assert [f.text for f in stack.container.facts.list_current("acme", "alice").items] == ["Loves jazz"]


def test_prune_through_the_handler_reports_its_counts(stack: Stack, handler: Any) -> None:
    remember(stack, "Loves jazz")

    report = handler({"action": "prune", "execution_id": EXECUTION}, FakeContext())

    assert report == {
        "action": "prune",
        "execution_id": EXECUTION,
        "scopes": 1,
        "over_cap": 0,
        "pruned": 0,
        "conflicts": 0,
    }


@pytest.mark.parametrize(
    "event",
    [
        {"action": "defragment", "execution_id": EXECUTION},
        {"execution_id": EXECUTION},
        {"action": "repair", "user_id": "bob"},  # a user without a tenant is ambiguous
        {"action": "repair", "tenant": "acme"},  # a misspelt scope must not widen the run
    ],
)
def test_a_bad_event_is_rejected_with_a_validation_error(stack: Stack, handler: Any, event: dict[str, Any]) -> None:
    remember(stack, "Loves jazz")
    stack.container.index.delete("acme", "alice", list(stack.container.index.ids("acme", "alice")))

    with pytest.raises(ValidationError):
        handler(event, FakeContext())

    assert stack.container.index.ids("acme", "alice") == set()  # nothing ran


def test_summarise_over_dynamodb_merges_old_similar_facts_and_moves_their_attachment(
    stack: Stack, handler: Any
) -> None:
    stack.container.llm = stack.llm  # as if an LLM were configured
    old = datetime.now(UTC) - timedelta(days=45)
    dog = "Has a dog named Max, a golden retriever who loves long walks in the park"
    stack.container.attachment_store.create(
        Attachment(id="photo", tenant_id="acme", user_id="alice", name="max.jpg", media_type="image/jpeg", blob_key="k")
    )
    originals = []
    for suffix, attachments in (("", ["photo"]), (" every Sunday", []), (" near Hamburg", [])):
        fact = Fact(
            tenant_id="acme",
            user_id="alice",
            text=dog + suffix,
            attachment_ids=attachments,
            created_at=old,
            updated_at=old,
            valid_from=old,
        )
        stack.container.facts.add(fact, history_event(fact, Event.ADD, None, fact.text, "test"))
        if attachments:
            stack.container.attachment_store.link("acme", "photo", fact.id)
        originals.append(fact)
    summary_text = dog + " every Sunday, near Hamburg"
    stack.llm.answers.append(json.dumps({"summary": summary_text}))

    report = handler({"action": "summarise", "execution_id": EXECUTION}, FakeContext())

    assert (report["summaries"], report["facts_summarised"], report["conflicts"]) == (1, 3, 0)
    (summary,) = stack.container.facts.list_current("acme", "alice").items
    assert (summary.text, summary.is_summarized) == (summary_text, True)
    assert sorted(summary.summarized_from) == sorted(f.id for f in originals)
    assert stack.container.index.ids("acme", "alice") == {summary.id}
    assert stack.container.attachment_store.holders("acme", "photo") == [summary.id]
    closed = stack.container.facts.get("acme", originals[0].id, include_closed=True)
    assert closed.valid_to is not None
    assert stack.container.facts.history("acme", closed.id)[-1].note == f"summarised into {summary.id}"


def test_the_sample_event_for_sam_local_invoke_runs(stack: Stack, handler: Any) -> None:
    event = json.loads((ROOT / "events" / "maintenance_repair.json").read_text())

    report = handler(event, FakeContext())

    assert (report["action"], report["execution_id"]) == ("repair", event["execution_id"])


def test_list_scopes_pages_through_one_tenants_users_without_overlap(stack: Stack, handler: Any) -> None:
    for user in ["u1", "u2", "u3"]:
        remember(stack, "Loves jazz", user=user)
    remember(stack, "Loves opera", user="u9", tenant="globex")
    runner = stack.container.maintenance

    first = runner.list_scopes("acme", page_size=2)
    second = runner.list_scopes("acme", cursor=first["next_cursor"], page_size=2)

    assert [u["user_id"] for u in first["users"]] == ["u1", "u2"]
    assert [u["user_id"] for u in second["users"]] == ["u3"] and second["next_cursor"] is None
    assert {u["tenant_id"] for u in first["users"] + second["users"]} == {"acme"}  # the other tenant is not listed
    page = handler(
        {
            "action": "list_scopes",
            "execution_id": EXECUTION,
            "scope": {"tenant_id": "acme", "actions": ["dedupe"], "users": []},
        },
        FakeContext(),
    )
    assert [u["user_id"] for u in page["users"]] == ["u1", "u2", "u3"]
    assert page["users"][0] == {"tenant_id": "acme", "user_id": "u1", "actions": ["dedupe"]}


def test_a_step_not_among_the_requested_actions_is_skipped(stack: Stack, handler: Any) -> None:
    jazz = remember(stack, "Loves jazz")
    stack.container.index.delete("acme", "alice", [jazz.id])

    report = handler({"action": "repair", "tenant_id": "acme", "user_id": "alice", "actions": ["prune"]}, FakeContext())

    assert report["skipped"] == "not requested"
    assert stack.container.index.ids("acme", "alice") == set()  # nothing was repaired
