"""Graph memory through `make run`'s HTTP API: the done-when walk-through, routes and isolation."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.e2e.stack_process import Api

pytestmark = pytest.mark.e2e


def triples(relations: list[dict[str, Any]]) -> set[tuple[str, str, str]]:
    return {(r["source"], r["relation"], r["destination"]) for r in relations}


def graph(api: Api, user: str) -> dict[str, Any]:
    resp = api.request("GET", "/v1/graph", params={"user_id": user})
    assert resp.status_code == 200, resp.text
    body: dict[str, Any] = resp.json()
    return body


def test_sister_in_oslo_is_found_by_asking_who_maren_is(acme: Api, globex: Api) -> None:
    user = f"user-{uuid.uuid4().hex[:12]}"
    acme.remember(user, "My sister Maren lives in Oslo. I work at Brightwave.")

    resp = acme.request("POST", "/v1/memories/search", json={"user_id": user, "query": "Who is Maren?"})

    assert resp.status_code == 200, resp.text
    relations = resp.json()["relations"]
    assert triples(relations) == {(user, "sister", "Maren"), ("Maren", "lives_in", "Oslo")}
    assert all(r["valid_to"] is None and r["score"] > 0 for r in relations)
    shown = graph(acme, user)
    assert {(user, "sister", "Maren"), ("Maren", "lives_in", "Oslo"), (user, "works_at", "Brightwave")} <= triples(
        shown["relations"]
    )
    maren = next(e for e in shown["entities"] if e["name"] == "Maren")
    entity = acme.request("GET", f"/v1/graph/entities/{maren['id']}").json()
    assert triples(entity["relations"]) == {(user, "sister", "Maren"), ("Maren", "lives_in", "Oslo")}
    off = acme.request("POST", "/v1/memories/search", json={"user_id": user, "query": "Who is Maren?", "graph": False})
    assert off.json()["relations"] == []

    # Another tenant sees none of it, and its ids answer 404.
    assert graph(globex, user)["relations"] == []
    assert globex.request("GET", f"/v1/graph/entities/{maren['id']}").status_code == 404
    relation_id = relations[0]["id"]
    assert globex.request("DELETE", f"/v1/graph/relations/{relation_id}").status_code == 404


def test_a_job_change_closes_the_old_relation_and_delete_all_forgets_the_graph(acme: Api) -> None:
    user = f"user-{uuid.uuid4().hex[:12]}"
    acme.remember(user, "Alice works at MIT")
    acme.remember(user, "Alice now works at Stanford as a professor")

    assert triples(graph(acme, user)["relations"]) == {
        ("Alice", "works_at", "Stanford"),
        ("Alice", "works_as", "professor"),
    }
    alice = next(e for e in graph(acme, user)["entities"] if e["name"] == "Alice")
    history = acme.request("GET", f"/v1/graph/entities/{alice['id']}").json()["relations"]
    closed = {r["destination"]: r["valid_to"] for r in history if r["relation"] == "works_at"}
    assert closed["MIT"] is not None and closed["Stanford"] is None

    stanford = next(r for r in history if r["destination"] == "Stanford")
    assert acme.request("DELETE", f"/v1/graph/relations/{stanford['id']}").status_code == 200
    assert ("Alice", "works_at", "Stanford") not in triples(graph(acme, user)["relations"])

    deleting = acme.request("DELETE", "/v1/memories", params={"user_id": user})
    assert deleting.status_code == 202  # delete-all is a task: the graph goes with it
    assert acme.wait(deleting.json()["task_id"])["status"] == "completed"
    assert graph(acme, user) == {
        "entities": [],
        "relations": [],
        "next_entity_cursor": None,
        "next_relation_cursor": None,
    }
