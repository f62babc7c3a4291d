"""Through `make run` over HTTP, as the README tells a client to send a conversation: each turn one add with
`infer=false`, `created_at` the time it was said and the speaker as the message's `name`. A question that
names a speaker finds that speaker's turn first (the speaker step), with no metadata convention."""

from __future__ import annotations

import uuid

import pytest

from tests.e2e.stack_process import Api

pytestmark = pytest.mark.e2e

# Two speakers say the same thing of themselves: only who said each turn tells the answers apart.
TURNS = [
    ("Sam", "I drive a Honda Civic to work every day", "2024-05-01T10:00:00Z"),
    ("Evan", "I drive a Prius to work every day", "2024-05-01T10:00:01Z"),
    ("Sam", "We went hiking at the lake on Sunday", "2024-05-01T10:00:02Z"),
]


def test_a_question_naming_a_speaker_ranks_their_turn_first(acme: Api) -> None:
    user = f"speakers-{uuid.uuid4().hex[:12]}"
    for name, text, said in TURNS:
        body = {
            "user_id": user,
            "messages": [{"role": "user", "content": text, "name": name, "created_at": said}],
            "infer": False,
        }
        response = acme.request("POST", "/v1/memories", body)
        assert response.status_code == 202, response.text
        assert acme.wait(response.json()["task_id"])["status"] == "completed"
    kept = {m["memory"]: m for m in acme.memories(user)}
    assert {text: kept[text]["source"]["name"] for _, text, _ in TURNS} == {text: name for name, text, _ in TURNS}
    assert all("speaker" not in m["metadata"] for m in kept.values())  # the client's metadata is untouched
    assert acme.search(user, "What car does Evan drive?")[0]["memory"] == "I drive a Prius to work every day"
    assert acme.search(user, "What car does Sam drive?")[0]["memory"] == "I drive a Honda Civic to work every day"
