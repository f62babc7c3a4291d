"""Through `make run`'s stack over HTTP: a protected memory survives a contradicting add (stored
beside, the task says so), and a memory stored as given says who said it (list, search, read)."""

from __future__ import annotations

import uuid

import pytest

from tests.e2e.stack_process import Api

pytestmark = pytest.mark.e2e


def new_user() -> str:
    return f"user-{uuid.uuid4().hex[:12]}"


def test_a_protected_city_stays_and_the_move_is_stored_beside_it(acme: Api) -> None:
    user = new_user()
    first = acme.remember(user, "I live in Berlin.")
    berlin = next(r for r in first["results"] if "Berlin" in r["memory"])
    assert acme.request("PATCH", f"/v1/memories/{berlin['id']}", json={"is_protected": True}).status_code == 200

    task = acme.remember(user, "I moved to Munich.")

    (result,) = task["results"]
    assert result["event"] == "ADD" and "Munich" in result["memory"], task
    assert result["note"] == f"kept beside protected {berlin['id']}"
    current = {m["id"]: m for m in acme.memories(user)}
    assert current[berlin["id"]]["memory"] == berlin["memory"] and current[berlin["id"]]["valid_to"] is None
    assert result["id"] in current


def test_stored_as_given_messages_say_who_said_them(acme: Api) -> None:
    user = new_user()
    messages = [
        {"role": "user", "content": "Please keep my locker number 118 in mind", "name": "alice"},
        {"role": "assistant", "content": "Sure, I will remember locker 118."},
        {"role": "user", "content": "Thanks!"},
    ]
    resp = acme.request("POST", "/v1/memories", json={"user_id": user, "messages": messages, "infer": False})
    assert resp.status_code == 202, resp.text
    task = acme.wait(resp.json()["task_id"])
    assert task["status"] == "completed", task

    listed = {m["memory"]: m["source"] for m in acme.memories(user)}
    assert {text: (s["role"], s["name"]) for text, s in listed.items()} == {
        "Please keep my locker number 118 in mind": ("user", "alice"),
        "Sure, I will remember locker 118.": ("assistant", None),
        "Thanks!": ("user", None),
    }
    hits = {m["memory"]: m["source"]["role"] for m in acme.search(user, "locker 118")}
    assert hits["Sure, I will remember locker 118."] == "assistant"
