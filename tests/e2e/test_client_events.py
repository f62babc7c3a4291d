"""`engram tail` and the SDK's live events. The live-events route is optional on a server: which of these
tests runs depends on whether the stack answers the WebSocket upgrade on /v1/events."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import uuid
from pathlib import Path

import pytest

from engram_client import Engram
from engram_client.events import EventsUnavailable, event_stream
from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import StackProcess

pytestmark = pytest.mark.e2e
ENGRAM = str(Path(sys.executable).with_name("engram"))


def offers_events(stack: StackProcess) -> bool:
    try:
        with event_stream(stack.url, ACME_KEY, "probe"):
            return True
    except EventsUnavailable:
        return False


def test_tail_says_when_the_server_has_no_live_events(stack: StackProcess) -> None:
    if offers_events(stack):
        pytest.skip("this stack offers live events: test_tail_follows_an_add covers it")
    env = {**os.environ, "ENGRAM_URL": stack.url, "ENGRAM_API_KEY": ACME_KEY}
    result = subprocess.run([ENGRAM, "tail"], capture_output=True, text=True, env=env, timeout=60)
    assert result.returncode == 1
    assert "/v1/events refused the upgrade" in result.stderr


def test_tail_follows_an_add(stack: StackProcess) -> None:
    if not offers_events(stack):
        pytest.skip("this stack offers no live events (GET /v1/events is not a WebSocket)")
    user = f"tail-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "ENGRAM_URL": stack.url, "ENGRAM_API_KEY": ACME_KEY}
    tail = subprocess.Popen(
        [ENGRAM, "tail", "--json", "--user-id", user],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    watchdog = threading.Timer(120, tail.kill)  # a missing event fails the test instead of hanging it
    watchdog.start()
    try:
        assert tail.stdout is not None and tail.stderr is not None
        # Subscribed before the add: "following task events of ..." is printed once the socket is open.
        assert "following task events" in tail.stderr.readline()
        with Engram(stack.url, ACME_KEY) as client:
            task = client.add("I live in Berlin", user_id=user, wait=False)
        seen = []
        for line in tail.stdout:
            event = json.loads(line)
            seen.append(event["type"])
            if event["type"] == "memory_extraction_completed":
                assert event["task_id"] == task.task_id and event["facts_count"] >= 1
                break
        assert seen[-1] == "memory_extraction_completed"
    finally:
        watchdog.cancel()
        tail.terminate()
        tail.wait(timeout=10)
