"""`kill -9` of `make run` with adds in flight, then a restart on the same data folder: every add that
was answered 202 before the kill is stored, exactly once. (The local front saves state before it
answers a write, and a saved queue message is processed again after the restart.)

The short variant runs in `make test`; `make soak` runs the long one (more writers, more adds)."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import httpx
import pytest

from tests.e2e.stack_process import Api, StackProcess
from tests.figures import record

pytestmark = pytest.mark.e2e

KEY = "key-kill-1"


def run_and_kill(tmp_path: Path, writers: int, accepted_before_kill: int) -> None:
    stack = StackProcess(tmp_path / "data", f"acme:{KEY}").start()
    api = Api(stack, KEY)
    accepted: dict[str, str] = {}  # text -> task id, for every add answered 202
    unanswered = [0]  # adds whose request was cut by the kill: never acknowledged, so not promised
    lock = threading.Lock()
    stop = threading.Event()

    def write(writer: int) -> None:
        n = 0
        while not stop.is_set():
            text = f"Writer {writer} note {n}: the kill test wrote this."
            message = {"role": "user", "content": text}
            # Stored as given, none merged into another: each accepted add is one memory to count.
            body = {"user_id": f"kill-{writer}", "messages": [message], "infer": False, "deduplicate": False}
            try:
                resp = api.request("POST", "/v1/memories", json=body)
            except httpx.TransportError:
                with lock:
                    unanswered[0] += 1
                return
            if resp.status_code == 202:
                with lock:
                    accepted[text] = resp.json()["task_id"]
            n += 1

    threads = [threading.Thread(target=write, args=(w,)) for w in range(writers)]
    for thread in threads:
        thread.start()
    while len(accepted) < accepted_before_kill:
        time.sleep(0.01)
    stack.kill()  # mid-stream: adds in flight, tasks queued, others being processed
    stop.set()
    for thread in threads:
        thread.join(timeout=60)
    acked = dict(accepted)

    stack.start()
    try:
        # A task the restarted stack does not know was lost with its add; the others must finish.
        known = [t for t in acked.values() if api.request("GET", f"/v1/tasks/{t}").status_code != 404]
        tasks = [api.wait(task_id, timeout_s=180) for task_id in known]
        stored: dict[str, int] = {}
        for writer in range(writers):
            for memory in api.memories(f"kill-{writer}"):
                stored[memory["memory"]] = stored.get(memory["memory"], 0) + 1
    finally:
        stack.stop()
    lost = [text for text in acked if text not in stored]
    duplicates = sum(n - 1 for n in stored.values())
    record(
        f"faults: kill -9 of make run ({writers} writers)",
        adds_answered_202=len(acked),
        adds_cut_by_the_kill=unanswered[0],
        tasks_unknown_after_restart=len(acked) - len(known),
        tasks_completed_after_restart=sum(t["status"] == "completed" for t in tasks),
        accepted_adds_lost=len(lost),
        duplicates=duplicates,
    )
    assert lost == []
    assert duplicates == 0
    assert [t["status"] for t in tasks] == ["completed"] * len(acked)


def test_kill_9_with_adds_in_flight_loses_no_accepted_add(tmp_path: Path) -> None:
    run_and_kill(tmp_path, writers=3, accepted_before_kill=15)


@pytest.mark.soak
def test_kill_9_under_a_longer_stream_of_adds_loses_no_accepted_add(tmp_path: Path) -> None:
    run_and_kill(tmp_path, writers=8, accepted_before_kill=200)
