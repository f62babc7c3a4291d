"""Requests said in chat through `make run`'s stack (offline): "never store anything about my finances",
"forget what I said about X", "you can remember X again" become the user's own policy, visible and
reversible through /v1/config?user_id=..., and hold for that user only (docs/safety.md)."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.e2e.stack_process import Api

pytestmark = pytest.mark.e2e


def said(api: Api, user: str, text: str) -> dict[str, object]:
    task: dict[str, object] = api.wait(api.add(user, text))
    assert task["status"] == "completed", task
    return task


def stored(api: Api, user: str) -> str:
    return json.dumps([m["memory"] for m in api.memories(user)])


@pytest.fixture
def user() -> str:
    return f"asks-{uuid.uuid4().hex[:8]}"


def test_dont_remember_holds_from_that_message_on_for_that_user_only(acme: Api, user: str) -> None:
    said(acme, user, "Please never store anything about my finances.")
    assert acme.request("GET", "/v1/config", params={"user_id": user}).json()["exclude"] == ["finances"]

    said(acme, user, "My salary is 85k a year and my savings are in a Monzo account.")
    said(acme, user, "I live in Leeds.")
    assert "salary" not in stored(acme, user) and "Monzo" not in stored(acme, user)
    assert "Leeds" in stored(acme, user)

    other = f"other-{uuid.uuid4().hex[:8]}"
    said(acme, other, "My salary is 85k a year.")
    assert "85k" in stored(acme, other)  # another user's policy is their own

    said(acme, user, "You can remember things about my finances again.")
    assert acme.request("GET", "/v1/config", params={"user_id": user}).json()["exclude"] == []
    said(acme, user, "My salary is 90k a year now.")
    assert "90k" in stored(acme, user)


def test_forget_closes_what_was_remembered_and_keeps_it_out(acme: Api, user: str) -> None:
    said(acme, user, "My girlfriend Ana is a nurse. I live in Leeds.")
    assert "Ana" in stored(acme, user)

    task = said(acme, user, "Can you forget what I told you about Ana?")
    assert task["counts"]["forgotten"] >= 1, task  # type: ignore[index]
    assert "Ana" not in stored(acme, user) and "Leeds" in stored(acme, user)
    said(acme, user, "Ana and I went to Paris last weekend.")
    assert "Ana" not in stored(acme, user)


def test_a_users_policy_is_set_and_cleared_through_the_api(acme: Api, user: str) -> None:
    put = acme.request("PUT", "/v1/config", {"exclude": ["religion"]}, params={"user_id": user})
    assert put.status_code == 200 and put.json()["exclude"] == ["religion"]
    assert acme.request("GET", "/v1/config").json()["exclude"] == []  # the tenant's is untouched
    acme.request("PUT", "/v1/config", {}, params={"user_id": user})
    assert acme.request("GET", "/v1/config", params={"user_id": user}).json()["exclude"] == []


def test_a_request_in_other_words_inside_a_longer_message_holds_and_is_no_memory(acme: Api, user: str) -> None:
    said(
        acme, user, "I've just joined a climbing gym. Oh and could u pls not save anything abt my meds. I live in York."
    )
    config = acme.request("GET", "/v1/config", params={"user_id": user}).json()
    assert config["exclude"] == ["meds"]
    said(acme, user, "The GP switched me to a stronger painkiller.")
    assert "York" in stored(acme, user) and "climbing" in stored(acme, user)  # the rest of that message is kept
    assert "painkiller" not in stored(acme, user)
    assert "save" not in stored(acme, user)  # the request itself is the user's policy, not a memory of them


def test_forgetting_someone_named_by_role_keeps_out_what_is_said_of_them_by_name(acme: Api, user: str) -> None:
    said(acme, user, "My son Theo has asthma. I live in York.")
    said(acme, user, "Please forget what I told you about my son.")
    assert acme.request("GET", "/v1/config", params={"user_id": user}).json()["exclude"] == ["son (Theo)"]
    said(acme, user, "Theo got a part in the school play.")
    assert "Theo" not in stored(acme, user) and "York" in stored(acme, user)
    said(acme, user, "You can remember things about my son again.")
    assert acme.request("GET", "/v1/config", params={"user_id": user}).json()["exclude"] == []


def test_forget_closes_what_was_read_from_the_words_it_forgets(acme: Api, user: str) -> None:
    # "Lives in Hackney", read from the flat purchase, outlived "forget everything about the flat purchase"
    said(acme, user, "We're buying a flat in Hackney for 450k.")
    said(acme, user, "I work as a nurse.")
    assert "Hackney" in stored(acme, user)
    said(acme, user, "Please forget everything about the flat purchase, thank you.")
    assert "Hackney" not in stored(acme, user) and "nurse" in stored(acme, user)
