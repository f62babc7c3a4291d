"""A search counts as a use of what it found (for least-recently-used pruning), written in the
background in batches: the search itself never writes."""

from __future__ import annotations

import time
from collections.abc import Mapping
from datetime import datetime

from engram.domain.models import Event, Fact, SearchQuery
from engram.services.memory import MemoryService
from engram.services.touches import TouchBuffer
from engram.writes.unit_of_work import history_event, index_doc
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex, MemoryQueue, MemoryTaskStore


class CountingStore(MemoryFactStore):
    def __init__(self) -> None:
        super().__init__()
        self.touch_calls: list[tuple[str, dict[str, int]]] = []

    def touch(self, tenant_id: str, uses: Mapping[str, int], when: datetime) -> None:
        self.touch_calls.append((tenant_id, dict(uses)))
        super().touch(tenant_id, uses, when)


def service(facts: CountingStore, touches: TouchBuffer) -> MemoryService:
    index, embedder = MemoryIndex(), HashEmbedder()
    for text in ("Lives in Berlin", "Loves pizza"):
        fact = Fact(tenant_id="acme", user_id="alice", text=text)
        facts.add(fact, history_event(fact, Event.ADD, None, text, "test"))
        index.upsert([index_doc(fact, embedder.embed([text])[0])])
    return MemoryService(facts, index, embedder, MemoryTaskStore(), MemoryQueue(), touches=touches)


def test_searches_are_written_as_uses_in_one_batch_later() -> None:
    facts = CountingStore()
    touches = TouchBuffer(facts, interval_s=3600)  # no timed flush during the test
    memories = service(facts, touches)
    for _ in range(3):
        found = memories.search("acme", SearchQuery(user_id="alice", query="Berlin", top_k=1))
    assert facts.touch_calls == []  # nothing written while searching
    assert touches.flush() == 1
    (berlin,) = [f for f, _ in found]
    assert facts.touch_calls == [("acme", {berlin.id: 3})]  # three searches, one write
    stored = facts.get("acme", berlin.id)
    assert stored.last_accessed_at is not None and stored.access_count == 3


def test_a_full_buffer_is_written_by_the_background_thread() -> None:
    facts = CountingStore()
    memories = service(facts, TouchBuffer(facts, interval_s=3600, max_pending=1, pause_s=0.05))
    memories.search("acme", SearchQuery(user_id="alice", query="pizza", top_k=1))
    deadline = time.monotonic() + 10
    while not facts.touch_calls and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(facts.touch_calls) == 1


def test_while_searches_keep_coming_the_writes_wait_for_a_pause() -> None:
    facts = CountingStore()
    memories = service(facts, TouchBuffer(facts, interval_s=3600, max_pending=1, pause_s=1.0))
    searches, began = 0, time.monotonic()
    while time.monotonic() - began < 1.5:  # a burst: a search every 50 ms, a full buffer from the first
        (pizza,) = [f for f, _ in memories.search("acme", SearchQuery(user_id="alice", query="pizza", top_k=1))]
        searches += 1
        time.sleep(0.05)
    assert facts.touch_calls == []  # nothing written beside the burst
    deadline = time.monotonic() + 10
    while not facts.touch_calls and time.monotonic() < deadline:
        time.sleep(0.01)
    assert facts.touch_calls == [("acme", {pizza.id: searches})]  # then the burst's uses in one write
