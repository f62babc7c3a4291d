"""Trying a sentence against the memory policy through `make run`'s stack (issue 44): POST
/v1/config/policy/test answers, clause by clause, what the include/exclude screen would do and the bank
or topic each clause is nearest to, and stores nothing."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.e2e.stack_process import Api

pytestmark = pytest.mark.e2e
TEST = "/v1/config/policy/test"


def verdicts(api: Api, body: dict[str, Any]) -> dict[str, dict[str, Any]]:
    resp = api.request("POST", TEST, body)
    assert resp.status_code == 200, resp.text
    return {c["text"]: c for c in resp.json()["clauses"]}


def test_the_stored_policy_decides_each_clause_and_names_the_nearest_topic(tenant: Api) -> None:
    assert tenant.request("PUT", "/v1/config", {"exclude": ["religion"]}).status_code == 200
    resp = tenant.request("POST", TEST, {"text": "I'm fasting for Ramadan this month, and I live in Edinburgh."})
    assert resp.status_code == 200, resp.text
    answer = resp.json()
    assert answer["exclude"] == ["religion"] and answer["by_meaning"] is True
    assert answer["stored"] == "I live in Edinburgh."
    fasting, edinburgh = answer["clauses"]
    assert fasting["decision"] == "excluded" and fasting["reason"] == "excluded: religion", fasting
    assert fasting["nearest"] == "religion" and fasting["entries"][0]["matches"] is True
    assert edinburgh["decision"] == "kept" and edinburgh["nearest"] == "Personal", edinburgh
    religion = edinburgh["entries"][0]
    assert religion["entry"] == "religion" and religion["matches"] is False and religion["margin"] < 0


def test_a_policy_given_is_tried_instead_of_the_stored_one(tenant: Api) -> None:
    assert tenant.request("PUT", "/v1/config", {"exclude": ["religion"]}).status_code == 200
    found = verdicts(
        tenant,
        {
            "text": "I take insulin twice a day. I light candles for Diwali.",
            "policy": {"exclude": ["health"], "include": []},
        },
    )
    assert found["I take insulin twice a day"]["decision"] == "excluded"
    assert found["I take insulin twice a day"]["nearest"] == "Health"
    assert found["I light candles for Diwali"]["decision"] == "kept"  # religion is the stored policy's only


def test_include_answers_not_included_for_a_clause_about_nothing_included(tenant: Api) -> None:
    found = verdicts(tenant, {"text": "I live in Leeds", "policy": {"include": ["Work"]}})
    assert found["I live in Leeds"]["decision"] == "not included", found
    found = verdicts(tenant, {"text": "I work as a nurse", "policy": {"include": ["Work"]}})
    assert found["I work as a nurse"]["decision"] == "kept", found


def test_a_user_named_adds_what_that_user_asked_not_to_be_remembered(tenant: Api) -> None:
    user = f"trial-{uuid.uuid4().hex[:8]}"
    put = tenant.request("PUT", "/v1/config", {"exclude": ["finances"]}, params={"user_id": user})
    assert put.status_code == 200, put.text
    said = "my salary is 60k a year"
    assert verdicts(tenant, {"text": said, "user_id": user})[said]["decision"] == "excluded"
    assert verdicts(tenant, {"text": said})[said]["decision"] == "kept"  # the tenant's policy alone
    assert tenant.memories(user) == []  # trying stores nothing


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({}, "text"),
        ({"text": ""}, "text"),
        ({"text": "x" * 4_001}, "text"),
        ({"text": "hi", "user_id": "a\x01b"}, "user_id"),
        ({"text": "hi", "user_id": ""}, "user_id"),
        ({"text": "hi", "policy": {"exclude": ["x" * 101]}}, "policy.exclude.0"),
        ({"text": "hi", "policy": {"instructions": "no"}}, "policy.instructions"),
    ],
)
def test_bad_input_is_a_422_naming_the_field(acme: Api, body: dict[str, Any], field: str) -> None:
    resp = acme.request("POST", TEST, body)
    assert resp.status_code == 422, resp.text
    assert resp.json()["field"] == field, resp.json()
