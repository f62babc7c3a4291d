"""Through `make run` over HTTP: no message stalls the stack, and memories know when things were said."""

from __future__ import annotations

import threading
import time
import uuid

import pytest

from tests.e2e.stack_process import Api
from tests.figures import record

pytestmark = pytest.mark.e2e

# Each of these once held a worker (and, through the GIL, the whole local stack) for seconds to hours.
PATHOLOGICAL = [
    "I love pizza" + "!" * 40 + "x",
    "I love pizza" + ")" * 40 + "x",
    "I live in Berlin " + "\U0001f600" * 60 + " lol",
    "and " * 25_000,
    "Dr. " * 25_000,
    "I love pizza" + "!" * 99_000 + "x",
]


def test_the_api_keeps_answering_while_pathological_messages_are_processed(acme: Api) -> None:
    user = f"patho-{uuid.uuid4().hex[:12]}"
    task_ids = [acme.add(user, text) for text in PATHOLOGICAL]
    slowest, answered = 0.0, 0
    stop = threading.Event()

    def watch() -> None:
        nonlocal slowest, answered
        while not stop.is_set():
            began = time.monotonic()
            assert acme.request("GET", "/health").status_code == 200
            assert acme.request("POST", "/v1/memories/search", {"user_id": user, "query": "pizza"}).status_code == 200
            slowest, answered = max(slowest, time.monotonic() - began), answered + 1
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        finished = [acme.wait(task_id, timeout_s=120) for task_id in task_ids]
    finally:
        stop.set()
        watcher.join()
    record("pathological messages through make run", messages=len(PATHOLOGICAL), requests=answered, slowest_s=slowest)
    assert {t["status"] for t in finished} == {"completed"}
    assert answered > 0 and slowest < 5.0  # a loaded 2-core machine answers well within this
    kept = acme.memories(user)
    assert any("pizza" in m["memory"] for m in kept)  # nothing said was lost


def test_memories_carry_when_they_were_said_and_history_told_late_stays_history(acme: Api) -> None:
    user = f"time-{uuid.uuid4().hex[:12]}"
    for text, said in [
        ("I live in Munich.", "2024-03-01T10:00:00Z"),
        ("I live in Hamburg.", "2023-05-08T13:56:00+02:00"),
        ("I went to a pottery class yesterday", "2023-05-08T13:56:00Z"),
    ]:
        response = acme.request(
            "POST",
            "/v1/memories",
            {"user_id": user, "messages": [{"role": "user", "content": text, "created_at": said}]},
        )
        assert response.status_code == 202
        assert acme.wait(response.json()["task_id"])["status"] == "completed"
    current = {m["memory"]: m for m in acme.memories(user)}
    assert current["Lives in Munich"]["valid_from"].startswith("2024-03-01T10:00:00")
    assert "Lives in Hamburg" not in current  # said before Munich: history, not the current home
    assert "Went to a pottery class on 7 May 2023" in current
    assert current["Went to a pottery class on 7 May 2023"]["source"]["role"] == "user"
    then = acme.request("GET", "/v1/memories", params={"user_id": user, "as_of": "2023-09-01T00:00:00Z"}).json()
    assert "Lives in Hamburg" in [m["memory"] for m in then["results"]]
    found = acme.request(
        "POST",
        "/v1/memories/search",
        {"user_id": user, "query": "What did I do in May 2023?", "now": "2024-06-01T00:00:00Z"},
    ).json()["results"]
    assert found[0]["memory"] == "Went to a pottery class on 7 May 2023"
    bad = acme.request(
        "POST",
        "/v1/memories",
        {"user_id": user, "messages": [{"role": "user", "content": "x", "created_at": "2999-01-01T00:00:00Z"}]},
    )
    assert bad.status_code == 422 and "messages.0.created_at" in bad.text
