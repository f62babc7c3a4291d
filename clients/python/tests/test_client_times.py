"""The SDK passes when things were said and the question's time through to the API."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from engram_client import _calls
from engram_client.mem0 import MemoryClient

SAID = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)


def test_an_add_sends_each_message_time_and_a_default_for_the_rest() -> None:
    call = _calls.add(
        [{"role": "user", "content": "a"}, {"role": "user", "content": "b", "created_at": 1683554160}],
        "alice",
        created_at=SAID,
    )
    assert [m["created_at"] for m in call.body["messages"]] == ["2023-05-08T13:56:00+00:00", 1683554160]
    assert "created_at" not in call.body


def test_an_add_without_times_leaves_them_to_the_server() -> None:
    assert "created_at" not in _calls.add("I live in Berlin", "alice").body["messages"][0]


def test_a_search_sends_its_time_range_and_now() -> None:
    body = _calls.search("hikes", "alice", time_range=(SAID, datetime(2023, 6, 1, tzinfo=UTC)), now=SAID).body
    assert body["time_range"] == {"from": "2023-05-08T13:56:00+00:00", "to": "2023-06-01T00:00:00+00:00"}
    assert body["now"] == "2023-05-08T13:56:00+00:00"


class _Recorder:
    def __init__(self) -> None:
        self.options: dict[str, Any] = {}

    def add(self, messages: object, **options: Any) -> Any:
        self.options = options
        return type("Task", (), {"task_id": "t", "status": "queued", "results": []})()


def test_the_mem0_client_maps_its_timestamp_to_when_the_messages_were_said() -> None:
    recorder = _Recorder()
    client = MemoryClient(client=recorder)  # type: ignore[arg-type]
    client.add("I went hiking yesterday", user_id="alice", timestamp=1683554160, wait=False)
    assert recorder.options["created_at"] == 1683554160


def test_an_add_sends_its_reconciliation_strategy() -> None:
    assert _calls.add("My dog Max is a labrador", "alice", strategy="relevance").body["strategy"] == "relevance"
