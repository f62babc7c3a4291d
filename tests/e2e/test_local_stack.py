"""The local stack end to end, over HTTP only: what a user of `make run` relies on."""

from __future__ import annotations

import uuid

import pytest

from tests.e2e.stack_process import Api, StackProcess

pytestmark = pytest.mark.e2e

CONVERSATION = "Hi, I'm Alice. I live in Berlin and I love pizza."


def new_user() -> str:
    return f"user-{uuid.uuid4().hex[:12]}"


def texts(memories: list[dict[str, object]]) -> list[str]:
    return [str(m["memory"]) for m in memories]


def test_a_conversation_becomes_searchable_memories(acme: Api) -> None:
    user = new_user()
    task_id = acme.add(user, CONVERSATION)

    task = acme.wait(task_id)

    assert task["status"] == "completed", task
    hits = acme.search(user, "Where does Alice live?")
    assert texts(hits)[0] == "Lives in Berlin"
    assert {"Lives in Berlin", "Loves pizza"} <= set(texts(acme.memories(user)))
    berlin = next(m for m in hits if m["memory"] == "Lives in Berlin")
    got = acme.request("GET", f"/v1/memories/{berlin['id']}")
    assert got.status_code == 200 and got.json()["memory"] == "Lives in Berlin"


def test_an_update_is_kept_in_the_history(acme: Api) -> None:
    user = new_user()
    acme.remember(user, CONVERSATION)
    pizza = next(m for m in acme.memories(user) if m["memory"] == "Loves pizza")

    resp = acme.request("PATCH", f"/v1/memories/{pizza['id']}", json={"text": "Loves pizza with olives"})

    assert resp.status_code == 200, resp.text
    assert acme.request("GET", f"/v1/memories/{pizza['id']}").json()["memory"] == "Loves pizza with olives"
    events = acme.history(pizza["id"])
    assert any(
        e["event"] == "UPDATE" and e["old_memory"] == "Loves pizza" and e["new_memory"] == "Loves pizza with olives"
        for e in events
    ), events


def test_a_deleted_memory_is_gone(acme: Api) -> None:
    user = new_user()
    acme.remember(user, CONVERSATION)
    pizza = next(m for m in acme.memories(user) if m["memory"] == "Loves pizza")

    resp = acme.request("DELETE", f"/v1/memories/{pizza['id']}")

    assert resp.status_code == 200, resp.text
    assert acme.request("GET", f"/v1/memories/{pizza['id']}").status_code == 404
    assert "Loves pizza" not in texts(acme.memories(user))
    assert "Loves pizza" not in texts(acme.search(user, "pizza"))


def test_moving_supersedes_the_old_city_and_keeps_it_in_history(acme: Api) -> None:
    user = new_user()
    first = acme.remember(user, "I live in Berlin.")
    berlin_id = next(r["id"] for r in first["results"] if "Berlin" in r["memory"])

    acme.remember(user, "I moved to Munich.")

    current = texts(acme.memories(user))
    assert any("Munich" in t for t in current), current
    assert not any("Berlin" in t for t in current), current
    munich_id = next(m["id"] for m in acme.memories(user) if "Munich" in m["memory"])
    events = acme.history(berlin_id) + (acme.history(munich_id) if munich_id != berlin_id else [])
    assert any("Berlin" in (e["old_memory"] or "") for e in events), events


def test_another_tenant_sees_nothing(acme: Api, globex: Api) -> None:
    user = new_user()
    acme.remember(user, CONVERSATION)
    berlin = next(m for m in acme.memories(user) if m["memory"] == "Lives in Berlin")

    assert globex.search(user, "Where does Alice live?") == []
    assert globex.memories(user) == []
    assert globex.request("GET", f"/v1/memories/{berlin['id']}").status_code == 404
    assert globex.request("GET", f"/v1/memories/{berlin['id']}/history").status_code == 404
    assert acme.request("GET", f"/v1/memories/{berlin['id']}").status_code == 200


def test_bad_input_is_a_4xx_naming_the_field(acme: Api) -> None:
    resp = acme.request("POST", "/v1/memories", json={"messages": [{"role": "user", "content": "hi"}]})

    assert resp.status_code == 422
    assert "user_id" in resp.text
    search = acme.request("POST", "/v1/memories/search", json={"user_id": "u", "query": "x", "top_k": 0})
    assert search.status_code == 422 and "top_k" in search.text


def test_requests_without_a_valid_key_are_refused(stack: StackProcess) -> None:
    assert Api(stack, None).request("GET", "/v1/memories", params={"user_id": "u"}).status_code == 401
    assert Api(stack, "not-a-key").request("GET", "/v1/memories", params={"user_id": "u"}).status_code == 403
    assert Api(stack, None).request("GET", "/health").status_code == 200


def test_unknown_routes_and_methods(acme: Api) -> None:
    assert acme.request("GET", "/v1/nothing-here").status_code == 404
    resp = acme.request("PUT", "/v1/memories")
    assert resp.status_code == 405 and "GET" in resp.headers["allow"]
    for method in ("TRACE", "CONNECT", "BREW"):  # not http.server's 501 HTML page
        resp = acme.request(method, "/v1/memories")
        assert resp.status_code == 405 and "POST" in resp.headers["allow"], (method, resp.text)
        assert resp.headers["content-type"].startswith("application/json")


def test_memories_survive_a_restart(stack: StackProcess, acme: Api) -> None:
    user = new_user()
    acme.remember(user, CONVERSATION)
    before = sorted(texts(acme.memories(user)))

    stack.restart()

    assert sorted(texts(acme.memories(user))) == before
    assert "Lives in Berlin" in texts(acme.search(user, "Where does Alice live?"))
    # and the restarted stack still processes new work
    acme.remember(user, "I work at Acme Corp.")
    assert len(acme.memories(user)) > len(before)
