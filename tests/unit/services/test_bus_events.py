"""Memory and task events for the tenant's rules: what each change publishes, that the text stays out
unless the tenant opted in, and that a failing bus never fails or loses the change it reports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from engram.domain.bus_events import BusEvent
from engram.domain.errors import TransientError
from engram.domain.models import AddRequest, Message, Scope, Task, TaskStatus
from engram.pipeline.ingest import IngestPipeline
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from engram.services.bus_events import NOT_PUBLISHED, BusEvents
from engram.services.task_events import NoEvents, TaskEvents
from tests.fakes import HashEmbedder, MemoryFactStore, MemoryIndex

SCOPE = Scope(tenant_id="acme", user_id="alice")


class RecordingBus:
    """The bus as a list; `refuse` entries are refused (once each), `fail` calls raise."""

    def __init__(self, refuse: int = 0, fail: int = 0) -> None:
        self.entries: list[Mapping[str, Any]] = []
        self.refuse, self.fail, self.calls = refuse, fail, 0

    def put(self, entries: Sequence[Mapping[str, Any]]) -> list[int]:
        self.calls += 1
        if self.fail:
            self.fail -= 1
            raise TransientError("ThrottlingException from event bus")
        refused = list(range(min(self.refuse, len(entries))))
        self.refuse -= len(refused)
        self.entries += [e for i, e in enumerate(entries) if i not in refused]
        return refused


class CountingMetrics:
    def __init__(self) -> None:
        self.counts: dict[str, float] = {}

    def add(self, name: str, value: float, unit: str = "Count") -> None:
        self.counts[name] = self.counts.get(name, 0) + value

    def flush(self) -> None:
        return None


def publisher(bus: RecordingBus, text: bool = False, metrics: CountingMetrics | None = None) -> BusEvents:
    return BusEvents(bus, lambda _tenant: text, metrics, sleep=lambda _s: None)


def run(p: IngestPipeline, text: str, task: str, month: int) -> None:
    said = datetime(2024, month, 1, tzinfo=UTC)
    p.run(SCOPE, AddRequest(messages=[Message(role="user", content=text, created_at=said)], user_id="alice"), task)


def pipeline(events: BusEvents) -> tuple[IngestPipeline, MemoryFactStore]:
    facts = MemoryFactStore()
    p = IngestPipeline(
        facts,
        MemoryIndex(),
        HashEmbedder(),
        OfflineExtractor(),
        KeyReconciler(),
        keep_episodes=True,
        announce=events.publish,
    )
    return p, facts


def test_an_add_then_a_replacing_fact_publishes_added_updated_and_outdated_with_versions() -> None:
    bus = RecordingBus()
    p, facts = pipeline(publisher(bus))
    run(p, "I live in Hamburg with my husband Tom and our cat Pixel.", "t1", 1)
    added = [e["detail"] for e in bus.entries]
    assert {d["event"] for d in added} == {"memory.added"} and len(added) >= 2
    assert all(d["version"] == 1 and d["previous_version"] is None and d["task_id"] == "t1" for d in added)

    bus.entries.clear()
    run(p, "We moved to Munich", "t2", 3)
    by_event = {e["detail"]["event"]: e["detail"] for e in bus.entries}
    episode = next(f for f in facts.list_current("acme", "alice", 100).items if f.kind == "episode")
    assert by_event["memory.outdated"]["memory_id"] == episode.id
    assert (by_event["memory.outdated"]["version"], by_event["memory.outdated"]["previous_version"]) == (2, 1)
    assert by_event["memory.updated"]["version"] == 2
    assert all("memory" not in e["detail"] for e in bus.entries)
    assert "Munich" not in repr(bus.entries) and "Hamburg" not in repr(bus.entries)


def test_the_text_is_sent_when_the_tenant_opted_in() -> None:
    bus = RecordingBus()
    p, _ = pipeline(publisher(bus, text=True))
    run(p, "I live in Hamburg", "t1", 1)
    assert any("Hamburg" in e["detail"].get("memory", "") for e in bus.entries)


def test_a_refused_or_failing_bus_is_retried_then_counted_never_raised() -> None:
    event = BusEvent(event="memory.added", tenant_id="acme", user_id="alice", memory_id="m1", version=1)
    bus = RecordingBus(refuse=1, fail=1)
    assert publisher(bus).publish([event, event]) == 0
    assert len(bus.entries) == 2 and bus.calls == 3  # failed call, one refused entry, its retry

    metrics = CountingMetrics()
    down = RecordingBus(fail=99)
    assert publisher(down, metrics=metrics).publish([event] * 12) == 12
    assert metrics.counts[NOT_PUBLISHED] == 12


def test_the_memory_is_stored_even_when_the_bus_is_down() -> None:
    p, facts = pipeline(publisher(RecordingBus(fail=99)))
    run(p, "I live in Hamburg", "t1", 1)
    assert any(f.fact_value == "Hamburg" for f in facts.list_current("acme", "alice", 100).items)


def test_finished_tasks_publish_completed_and_final_failures_only() -> None:
    bus = RecordingBus()
    events = TaskEvents(NoEvents(), bus=publisher(bus))
    done = Task(tenant_id="acme", user_id="alice", status=TaskStatus.COMPLETED)
    events.completed([done])
    failed = Task(tenant_id="acme", user_id="alice", status=TaskStatus.FAILED, error="boom")
    events.failed(failed, will_retry=True)
    events.failed(failed, will_retry=False)
    kinds = [(e["event"], e["detail"]["task_id"]) for e in bus.entries]
    assert kinds == [("task.completed", done.task_id), ("task.failed", failed.task_id)]
    assert bus.entries[1]["detail"]["error"] == "boom"
