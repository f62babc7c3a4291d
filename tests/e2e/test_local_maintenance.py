"""POST/GET /v1/maintenance on the local stack: the state machine runs per user on the local ASL runner."""

from __future__ import annotations

import time
from typing import Any

from tests.e2e.stack_process import Api


def finished(api: Api, execution_id: str, timeout_s: float = 60) -> Any:
    deadline = time.monotonic() + timeout_s
    run: Any = None
    while time.monotonic() < deadline:
        resp = api.request("GET", f"/v1/maintenance/{execution_id}")
        assert resp.status_code == 200, resp.text
        run = resp.json()
        if run["status"] != "RUNNING":
            return run
        time.sleep(0.2)
    raise AssertionError(f"maintenance run still {run and run['status']} after {timeout_s} s")


def test_a_dedupe_run_started_through_the_api_merges_one_users_duplicates(acme: Api, globex: Api) -> None:
    for _ in range(2):  # stored as given, the second time not skipped at ingest
        task = acme.add("maint-dan", "Dan plays the cello every Sunday", infer=False, deduplicate=False)
        assert acme.wait(task)["status"] == "completed"
    other = acme.add("maint-eve", "Dan plays the cello every Sunday", infer=False)
    acme.wait(other)

    started = acme.request("POST", "/v1/maintenance", json={"actions": ["dedupe"], "user_id": "maint-dan"})
    assert started.status_code == 202, started.text
    execution_id = started.json()["execution_id"]
    assert globex.request("GET", f"/v1/maintenance/{execution_id}").status_code == 404

    run = finished(acme, execution_id)

    assert run["status"] == "SUCCEEDED", run
    (report,) = run["report"]["reports"]
    assert report["user_id"] == "maint-dan" and report["dedupe"]["report"]["action"] == "dedupe"
    kept = acme.request("GET", "/v1/memories", params={"user_id": "maint-dan"}).json()["results"]
    assert len(kept) == 1  # the oldest stays
    eve = acme.request("GET", "/v1/memories", params={"user_id": "maint-eve"}).json()["results"]
    assert len(eve) == 1  # another user's same text is not a duplicate
    history = acme.request("GET", f"/v1/memories/{kept[0]['id']}/history").json()["results"]
    assert any((e.get("note") or "").startswith("merged ") for e in history)
