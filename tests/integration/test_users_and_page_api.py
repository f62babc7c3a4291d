"""GET /v1/users (the tenant's users, one Query on the memory table, listed as their adds are processed)
and the page's static files at /ui."""

from __future__ import annotations

from typing import Any

from tests.integration.stack import Stack
from tests.integration.test_delete_all import run_queued
from tests.support.handlers import load_function


def add(call: Any, user: str, tenant: str = "acme") -> None:
    body = {"user_id": user, "messages": [{"role": "user", "content": "I love jazz"}], "infer": False}
    assert call("POST", "/v1/memories", body, tenant=tenant)[0] == 202


def processed(stack: Stack) -> None:
    run_queued(stack, load_function("extraction").lambda_handler)


def test_users_are_listed_once_each_for_their_own_tenant_only(call: Any, stack: Stack) -> None:
    add(call, "alice")
    add(call, "bob")
    add(call, "alice")
    add(call, "mallory", tenant="globex")
    assert call("GET", "/v1/users")[1]["results"] == []  # accepted, not yet processed
    processed(stack)

    status, body = call("GET", "/v1/users")
    assert status == 200 and body["next_cursor"] is None
    assert [u["user_id"] for u in body["results"]] == ["alice", "bob"]
    assert all(u["last_active_at"] for u in body["results"])
    assert [u["user_id"] for u in call("GET", "/v1/users", tenant="globex")[1]["results"]] == ["mallory"]


def test_users_page_with_a_cursor_that_only_works_for_its_tenant(call: Any, stack: Stack) -> None:
    for user in ("u1", "u2", "u3"):
        add(call, user)
    processed(stack)
    first = call("GET", "/v1/users", query={"limit": "2"})[1]
    assert [u["user_id"] for u in first["results"]] == ["u1", "u2"] and first["next_cursor"]
    second = call("GET", "/v1/users", query={"limit": "2", "cursor": first["next_cursor"]})[1]
    assert [u["user_id"] for u in second["results"]] == ["u3"]

    status, body = call("GET", "/v1/users", query={"cursor": first["next_cursor"]}, tenant="globex")
    assert status == 400 and body["field"] == "cursor"


def test_a_later_add_moves_last_active_forward(call: Any, stack: Stack) -> None:
    add(call, "alice")
    processed(stack)
    before = call("GET", "/v1/users")[1]["results"][0]["last_active_at"]
    add(call, "alice")
    processed(stack)
    after = call("GET", "/v1/users")[1]["results"][0]["last_active_at"]
    assert after > before


def test_delete_all_drops_the_user_from_the_listing(call: Any, stack: Stack) -> None:
    add(call, "alice")
    add(call, "bob")
    assert call("DELETE", "/v1/memories", query={"user_id": "alice"})[0] == 202
    run_queued(stack, load_function("extraction").lambda_handler)
    assert [u["user_id"] for u in call("GET", "/v1/users")[1]["results"]] == ["bob"]


def test_an_add_accepted_after_the_delete_keeps_the_user_listed(call: Any, stack: Stack) -> None:
    add(call, "alice")
    assert call("DELETE", "/v1/memories", query={"user_id": "alice"})[0] == 202
    add(call, "alice")  # queued behind the delete-all: it survives, and so does her listing
    run_queued(stack, load_function("extraction").lambda_handler)
    assert [u["user_id"] for u in call("GET", "/v1/users")[1]["results"]] == ["alice"]
    assert call("GET", "/v1/memories", query={"user_id": "alice"})[1]["results"]


def test_the_page_is_served_without_a_key(call: Any) -> None:
    status, html = call("GET", "/ui", tenant=None)
    assert status == 200 and '<script type="module" src="/ui/app.js">' in html
    status, script = call("GET", "/ui/app.js", tenant=None)
    assert status == 200 and "x-api-key" in call("GET", "/ui/api.js", tenant=None)[1] and "import" in script


def test_only_the_page_files_are_served(call: Any) -> None:
    for name in ("__init__.py", "missing.js", ".hidden.css", "..%2F__init__.py"):
        assert call("GET", f"/ui/{name}", tenant=None)[0] == 404, name
