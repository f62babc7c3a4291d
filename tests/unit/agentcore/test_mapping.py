"""AgentCore's identifiers and namespaces over Engram's tenants, users, runs and memories."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import botocore.session
import pytest

from engram.agentcore.ids import (
    check_event_id,
    check_memory,
    memory_id_of,
    memory_id_of_record,
    namespace_of,
    new_event_id,
    parse_namespace,
    record_id,
    strategy_of,
)
from engram.domain.errors import NotFoundError, ValidationError
from engram.domain.models import Fact, MemoryBank

MODEL = botocore.session.get_session().get_service_model("bedrock-agentcore")


def pattern(shape: str) -> str:
    return str(MODEL.shape_for(shape).metadata["pattern"])


def fact(**fields: object) -> Fact:
    return Fact(tenant_id="acme", user_id="alice", text="Lives in Lyon", **fields)  # type: ignore[arg-type]


def test_each_tenant_has_one_memory_id_in_agentcores_pattern_and_no_other_tenants() -> None:
    acme, globex = memory_id_of("acme"), memory_id_of("globex")
    assert acme != globex and acme == memory_id_of("acme")
    assert re.fullmatch(pattern("MemoryId"), acme)
    check_memory("acme", acme)
    check_memory("acme", f"arn:aws:bedrock-agentcore:us-east-1:123456789012:memory/{acme}")
    with pytest.raises(NotFoundError):
        check_memory("acme", globex)


def test_record_ids_are_memory_ids_behind_mem_and_fit_the_pattern() -> None:
    f = fact()
    rid = record_id(f.id)
    assert re.fullmatch(pattern("MemoryRecordId"), rid) and 40 <= len(rid) <= 50
    assert memory_id_of_record(rid) == f.id
    with pytest.raises(ValidationError):
        memory_id_of_record("mem-not-a-uuid-at-all-but-forty-characters")


def test_event_ids_sort_by_event_time_and_fit_the_pattern() -> None:
    early = new_event_id(datetime(2024, 1, 1, tzinfo=UTC))
    late = new_event_id(datetime(2025, 1, 1, tzinfo=UTC))
    assert early < late
    assert re.fullmatch(pattern("EventId"), early)
    assert check_event_id(early) == early
    with pytest.raises(NotFoundError):
        check_event_id("12#zz")


@pytest.mark.parametrize(
    ("fields", "strategy", "namespace"),
    [
        ({}, "semantic", "/strategies/semantic/actors/alice/"),
        ({"memory_bank": MemoryBank.INTERESTS}, "preferences", "/strategies/preferences/actors/alice/"),
        ({"kind": "episode", "run_id": "s1"}, "episodic", "/strategies/episodic/actors/alice/sessions/s1/"),
        ({"summarized_from": ["a", "b"], "run_id": "s1"}, "summary", "/strategies/summary/actors/alice/sessions/s1/"),
        ({"run_id": "s1"}, "semantic", "/strategies/semantic/actors/alice/"),  # facts outlive the session
    ],
)
def test_a_memory_has_the_namespace_of_its_strategy(fields: dict[str, object], strategy: str, namespace: str) -> None:
    f = fact(**fields)
    assert (strategy_of(f), namespace_of(f)) == (strategy, namespace)
    assert re.fullmatch(pattern("Namespace"), namespace)


def test_a_namespace_is_exact_and_a_namespace_path_is_a_prefix_by_segment() -> None:
    episode = fact(kind="episode", run_id="s1")
    exact = parse_namespace("/strategies/episodic/actors/alice/sessions/s1", exact=True)
    assert exact.actor_id == "alice" and exact.holds(episode)
    assert not parse_namespace("/strategies/episodic/actors/alice", exact=True).holds(episode)
    assert parse_namespace("/strategies/episodic/actors/alice", exact=False).holds(episode)
    assert not parse_namespace("/strategies/episodic/actors/alice/sessions/s", exact=False).holds(episode)
    assert not parse_namespace("/strategies/semantic/actors/alice/", exact=False).holds(episode)


@pytest.mark.parametrize(
    "text",
    [
        "/",
        "/strategies/semantic/",
        "support/user/alice/facts",
        "/strategies/custom/actors/alice/",
        "/strategies/*/actors/a/",
    ],
)
def test_a_namespace_without_an_actor_or_strategy_is_refused_naming_the_field(text: str) -> None:
    with pytest.raises(ValidationError) as caught:
        parse_namespace(text, exact=False, field="namespacePath")
    assert caught.value.field == "namespacePath"
