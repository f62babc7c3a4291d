"""The stub LLM of the benchmarks answers each kind of request in the shape its caller parses."""

from __future__ import annotations

import json

import httpx

from bench.doubles.stub_llm import conversation_facts, respond, statements
from engram.domain.models import ExtractionPrompt
from engram.reconcile.prompts import (
    EXTRACTION_SCHEMA,
    extraction_system_prompt,
    reconcile_schema,
    reconcile_system_prompt,
    reconcile_user_message,
)
from tests.support.openai_stub import OpenAIStub


def _request(system: str, user: str, schema: dict[str, object] | None, name: str) -> dict[str, object]:
    body: dict[str, object] = {"messages": [{"role": "system", "content": system}, {"role": "user", "content": user}]}
    if schema is not None:
        body["response_format"] = {"type": "json_schema", "json_schema": {"name": name, "schema": schema}}
    else:
        body["response_format"] = {"type": "json_object"}
    return body


def test_statements_skip_small_talk_and_questions() -> None:
    text = "Hey Mel! How are you? I went to a support group yesterday. It was so powerful and moving to me."
    assert statements(text) == ["I went to a support group yesterday", "It was so powerful and moving to me"]
    assert statements("Thanks, that means a lot to me, really!") == []


def test_engram_extraction_gets_facts_from_every_speaker_line() -> None:
    conversation = "user: I adopted a cat last week from the shelter.\nassistant: Wow! Did it settle in well?"
    request = _request(
        extraction_system_prompt(ExtractionPrompt.USER), f"Input:\n{conversation}", EXTRACTION_SCHEMA, "facts"
    )

    answer = json.loads(respond(request))

    assert answer == {
        "facts": [{"text": "I adopted a cat last week from the shelter", "memory_bank": "General", "importance": 0.5}]
    }
    assert conversation_facts(conversation) == ["I adopted a cat last week from the shelter"]


def test_engram_reconciliation_adds_new_facts_and_keeps_known_ones() -> None:
    existing = [{"id": "0", "text": "I adopted a cat"}]
    user = reconcile_user_message(existing, ["I adopted a cat", "The cat is called Tom now"])
    request = _request(reconcile_system_prompt("default"), user, reconcile_schema(), "memory")

    answer = json.loads(respond(request))

    assert answer == {
        "memory": [
            {"id": "0", "text": "I adopted a cat", "event": "NONE", "old_memory": None},
            {"id": "1", "text": "The cat is called Tom now", "event": "ADD", "old_memory": None},
        ]
    }


def test_engram_single_call_answers_facts_decisions_and_relations_in_one_object() -> None:
    from datetime import UTC, datetime

    from engram.domain.graph import Relation
    from engram.domain.models import Fact, Message
    from engram.graph.llm import GraphContext
    from engram.pipeline import one_call

    known = Fact(tenant_id="t", user_id="u", text="I adopted a cat last week from the shelter")
    moved = Relation(
        tenant_id="t",
        user_id="u",
        source_entity_id="e1",
        relation="lives_in",
        destination_entity_id="e2",
        source="u",
        destination="Berlin",
        valid_from=datetime(2024, 1, 1, tzinfo=UTC),
    )
    graph = GraphContext("u", [moved], "0: u — lives_in — Berlin", "")
    said = "I adopted a cat last week from the shelter. My sister Maren works at Siemens."
    user = one_call.user_message([known], graph, [Message(role="user", content=said)])
    system = one_call.system_prompt(ExtractionPrompt.USER, with_graph=True)
    request = _request(system, user, one_call.schema(with_graph=True), one_call.SCHEMA_NAME)

    answer = json.loads(respond(request))

    assert [f["text"] for f in answer["facts"]] == [
        "I adopted a cat last week from the shelter",
        "My sister Maren works at Siemens",
    ]
    assert answer["memory"] == [
        {"id": "0", "text": "I adopted a cat last week from the shelter", "event": "NONE", "old_memory": None},
        {"id": "1", "text": "My sister Maren works at Siemens", "event": "ADD", "old_memory": None},
    ]
    assert [(r["source"], r["relation"], r["destination"]) for r in answer["relations"]] == [
        ("Maren", "works_at", "Siemens"),
        ("user", "sister", "Maren"),
    ]
    assert answer["delete"] == []


def test_mem0_additive_extraction_prompt() -> None:
    user = (
        "## Summary\n\n\n## Existing Memories\n[]\n\n## New Messages\n"
        "user: I signed up for a pottery class this spring.\n\n## Observation Date\n2024-01-01\n\n# Output:"
    )

    answer = json.loads(respond(_request("You extract memories.", user, None, "")))

    assert answer == {"memory": [{"text": "I signed up for a pottery class this spring"}]}


def test_stub_serves_given_vectors_and_counts_over_http() -> None:
    def embed(texts: list[str], dimensions: int) -> list[list[float]]:
        return [[float(len(t))] + [0.0] * (dimensions - 1) for t in texts]

    with OpenAIStub(respond, embedder=embed, embedding_dimensions=4, record_requests=False) as stub:
        vectors = httpx.post(f"{stub.base_url}/embeddings", json={"input": ["abc", "hello"], "model": "m"}).json()
        chat = _request("Extract facts.", "Input:\nuser: I live in a small town near Berlin.", EXTRACTION_SCHEMA, "f")
        httpx.post(f"{stub.base_url}/chat/completions", json=chat).raise_for_status()
        stats = httpx.get(f"{stub.base_url}/stub/stats").json()
        httpx.post(f"{stub.base_url}/stub/reset")
        after = httpx.get(f"{stub.base_url}/stub/stats").json()

    assert [d["embedding"] for d in vectors["data"]] == [[3.0, 0.0, 0.0, 0.0], [5.0, 0.0, 0.0, 0.0]]
    assert stats["chat_calls"] == 1 and stats["embedding_calls"] == 1 and stats["completion_tokens"] > 0
    assert after == {"chat_calls": 0, "embedding_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
    assert stub.requests == []  # record_requests=False


def test_single_call_with_a_message_that_starts_with_a_line_break() -> None:
    from engram.domain.models import Message
    from engram.pipeline import one_call

    said = "\nMy sister Maren works at Siemens."
    user = one_call.user_message([], None, [Message(role="user", content=said)])
    system = one_call.system_prompt(ExtractionPrompt.USER, with_graph=True)
    request = _request(system, user, one_call.schema(with_graph=True), one_call.SCHEMA_NAME)

    answer = json.loads(respond(request))  # an answer, not a stub failure (an empty first line)

    assert answer["relations"] == [] and answer["delete"] == []
