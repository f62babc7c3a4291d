"""Through `make run` (offline, no LLM), ordinary chat messages in a person's own words: the memory
state stays true to what was said (issue 33, failures 2 to 4)."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.e2e.stack_process import Api
from tests.e2e.test_local_graph import graph, triples

pytestmark = pytest.mark.e2e


def said(api: Api, user: str, text: str, at: str | None = None) -> Any:
    """One message, said at `at` (else now), added and processed."""
    message = {"role": "user", "content": text} | ({"created_at": at} if at else {})
    response = api.request("POST", "/v1/memories", {"user_id": user, "messages": [message]})
    assert response.status_code == 202, response.text
    task = api.wait(response.json()["task_id"])
    assert task["status"] == "completed", task
    return task


def test_a_new_home_outdates_the_old_one_said_only_in_passing(acme: Api) -> None:
    user = f"home-{uuid.uuid4().hex[:12]}"
    said(acme, user, "ugh, the commute from my flat in Leeds is killing me, 90 mins each way", "2025-01-10T09:00:00Z")
    said(acme, user, "I live in Manchester now, way better", "2025-03-02T09:00:00Z")

    found = acme.search(user, "where do I live?")
    assert "Manchester" in found[0]["memory"]
    old = [m for m in acme.memories(user) if "Leeds" in m["memory"]]
    # The older statement is closed, or kept as said and marked outdated by the newer one.
    assert old and all(m["outdated_by"] for m in old), old
    assert all(m["outdated_by"] or m["valid_to"] for m in found if "Leeds" in m["memory"])


def test_an_older_statement_told_late_does_not_outdate_the_newer(acme: Api) -> None:
    user = f"late-{uuid.uuid4().hex[:12]}"
    said(acme, user, "I live in Manchester now, way better", "2025-03-02T09:00:00Z")
    said(acme, user, "ugh, the commute from my flat in Leeds is killing me, 90 mins each way", "2025-01-10T09:00:00Z")

    current = acme.memories(user)
    newer = [m for m in current if "Manchester" in m["memory"]]
    assert newer and not any(m["outdated_by"] for m in newer)
    assert all(m["outdated_by"] for m in current if "Leeds" in m["memory"])
    assert "Manchester" in acme.search(user, "where do I live?")[0]["memory"]


def test_a_corrected_memory_takes_later_truth_and_names_the_correction_as_its_source(acme: Api) -> None:
    user = f"patch-{uuid.uuid4().hex[:12]}"
    said(acme, user, "I live in Porto.")
    memory = next(m for m in acme.memories(user) if m["memory"] == "Lives in Porto")

    patched = acme.request("PATCH", f"/v1/memories/{memory['id']}", {"text": "Lives in Lisbon"})
    assert patched.status_code == 200, patched.text
    shown = acme.request("GET", f"/v1/memories/{memory['id']}", params={"include": "source"}).json()
    assert (shown["fact_key"], shown["fact_value"]) == ("location", "Lisbon")
    assert shown["source"]["via"] == "patch" and not shown["source_messages"]  # the person's correction
    assert (user, "lives_in", "Lisbon") in triples(graph(acme, user)["relations"])
    assert (user, "lives_in", "Porto") not in triples(graph(acme, user)["relations"])

    task = said(acme, user, "I moved back to Porto.")  # after the correction
    assert task["counts"]["UPDATE"] == 1, task
    now = acme.request("GET", f"/v1/memories/{memory['id']}", params={"include": "source"}).json()
    assert now["memory"] == "Lives in Porto" and now["fact_value"] == "Porto"
    assert [m["content"] for m in now["source_messages"]] == ["I moved back to Porto."]  # the current version's


@pytest.mark.parametrize(
    ("text", "question", "expected"),
    [
        (
            "we're finally doing the Japan thing in April, booked flights this morning",
            "where am I travelling?",
            "Japan",
        ),
        (
            "peanuts make me swell up like a balloon so never suggest satay or anything like it",
            "what am I allergic to?",
            "peanut",
        ),
    ],
)
def test_facts_in_ordinary_phrasing_are_read_as_facts(acme: Api, text: str, question: str, expected: str) -> None:
    user = f"read-{uuid.uuid4().hex[:12]}"
    said(acme, user, text, "2025-05-09T09:00:00Z")
    facts = [m for m in acme.memories(user) if m["kind"] == "fact"]
    assert any(expected in m["memory"] and m["fact_value"] for m in facts), facts


def test_a_second_pet_called_something_is_a_fact_beside_the_first(acme: Api) -> None:
    user = f"pets-{uuid.uuid4().hex[:12]}"
    said(acme, user, "We got a dog last weekend, a beagle called Biscuit", "2025-03-14T09:00:00Z")
    said(
        acme, user, "update: we adopted another cat, called Miso. Biscuit is not impressed lol", "2025-07-02T09:00:00Z"
    )

    facts = {m["memory"]: m for m in acme.memories(user) if m["kind"] == "fact"}
    assert any("Miso" in text for text in facts), facts
    assert any("Biscuit" in text for text in facts), facts  # a second pet replaces nothing
    assert not any(m["outdated_by"] for m in acme.memories(user))
