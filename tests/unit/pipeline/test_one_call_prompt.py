"""The single call's prompt: the same system text on every add (a local server reuses its evaluated
prefix), every part of the enforced answer explained, the variable parts in the user message."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from engram.domain.models import AddRequest, ExtractionPrompt, Fact, Message
from engram.pipeline.one_call import schema, system_prompt, user_message
from tests.unit.pipeline.test_one_call import SCOPE, World, one_json


def _said(text: str, when: datetime) -> AddRequest:
    return AddRequest(messages=[Message(role="user", content=text, created_at=when)], user_id="alice")


def test_adds_said_on_different_days_send_the_same_system_prompt() -> None:
    world = World(
        one_json(["Lives in Berlin"], [{"id": "0", "text": "Lives in Berlin", "event": "ADD"}], []),
        one_json(["Has a dog named Max"], [{"id": "1", "text": "Has a dog named Max", "event": "ADD"}], []),
    )
    world.pipeline.run(SCOPE, _said("I live in Berlin", datetime(2023, 5, 8, 13, 56, tzinfo=UTC)), "t1")
    world.pipeline.run(SCOPE, _said("I have a dog named Max", datetime(2023, 6, 9, 9, 0, tzinfo=UTC)), "t2")
    first, second = world.llm.calls
    assert first["system"] == second["system"]
    assert "2023-05-08 13:56 UTC" in first["user"] and "2023-06-09 09:00 UTC" in second["user"]
    assert not re.search(r"\d{4}-\d{2}-\d{2}", first["system"])  # no date in the shared prefix


def test_a_conversation_without_times_is_told_todays_date_in_the_user_message() -> None:
    today = datetime.now(UTC).date().isoformat()
    assert f"Today is {today}." in user_message([], None, [Message(role="user", content="I moved yesterday")])
    dated = Message(role="user", content="I moved yesterday", created_at=datetime(2023, 5, 8, tzinfo=UTC))
    assert "Today is" not in user_message([], None, [dated])


def test_current_memories_are_shown_one_a_line_under_their_ids() -> None:
    shown = [Fact(tenant_id="acme", user_id="alice", text=t) for t in ("Lives in Berlin", "Likes\njazz")]
    text = user_message(shown, None, [Message(role="user", content="hi")])
    assert "Current memories:\n0: Lives in Berlin\n1: Likes jazz\n\n" in text
    assert "Current memories:\n(none)\n" in user_message([], None, [Message(role="user", content="hi")])


def _fields(node: dict[str, Any]) -> set[str]:
    names = set(node.get("properties", {}))
    for child in node.get("properties", {}).values():
        names |= _fields(child.get("items", child))
    return names


def test_the_prompt_names_every_field_of_the_enforced_answer() -> None:
    """The answer's shape is enforced by the schema alone; the text must still say what each field is."""
    for prompt in ExtractionPrompt:
        system = system_prompt(prompt, with_graph=True)
        missing = {f for f in _fields(schema(with_graph=True)) if f not in system}
        assert missing == set(), (prompt, missing)
