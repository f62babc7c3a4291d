"""Free topics as strong as banks, through `make run`'s stack (issue 44): a tenant's `exclude: ["religion"]`
cuts what is about religion without naming it, and keeps what is not."""

from __future__ import annotations

import json
import uuid

import pytest

from tests.e2e.stack_process import Api

pytestmark = pytest.mark.e2e


def stored(api: Api, user: str, text: str) -> str:
    task = api.wait(api.add(user, text))
    assert task["status"] == "completed", task
    return json.dumps([m["memory"] for m in api.memories(user)])


@pytest.mark.parametrize(
    "said",
    [
        "I'm fasting this month for Ramadan, so no lunch meetings for me.",
        "We lit the candles for Hanukkah with the kids last night.",
    ],
)
def test_a_free_topic_excludes_what_is_about_it_without_naming_it(tenant: Api, said: str) -> None:
    assert tenant.request("PUT", "/v1/config", {"exclude": ["religion"]}).status_code == 200
    user = f"topic-{uuid.uuid4().hex[:8]}"
    kept = stored(tenant, user, said).lower()
    # what is about religion is gone; a clause about nothing else in particular may stay ("no lunch meetings")
    assert not any(word in kept for word in ("ramadan", "fasting", "hanukkah", "candles")), kept


def test_a_free_topic_keeps_what_is_not_about_it(tenant: Api) -> None:
    assert tenant.request("PUT", "/v1/config", {"exclude": ["religion"]}).status_code == 200
    user = f"topic-{uuid.uuid4().hex[:8]}"
    kept = stored(tenant, user, "I live in Edinburgh and I work as a nurse.")
    assert "Edinburgh" in kept and "nurse" in kept
