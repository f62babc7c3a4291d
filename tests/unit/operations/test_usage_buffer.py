"""Search counts are summed in the container and written later, one write per tenant and day: a
search never waits on a counter write, and a report read through the buffer is exact."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence

from engram.domain.errors import TransientError
from engram.domain.operations import UsageDay
from engram.operations.accounting import Accounting
from engram.operations.usage_buffer import BufferedUsageCounters


class Counters:
    def __init__(self) -> None:
        self.writes: list[tuple[str, str, dict[str, int]]] = []
        self.failing = False

    def add(self, tenant_id: str, day: str, counts: Mapping[str, int]) -> None:
        if self.failing:
            raise TransientError("DynamoDB: throttled")
        self.writes.append((tenant_id, day, dict(counts)))

    def days(self, tenant_id: str, days: Sequence[str]) -> list[UsageDay]:
        totals = {d: sum(c.get("searches", 0) for t, day, c in self.writes if (t, day) == (tenant_id, d)) for d in days}
        return [UsageDay(date=d, searches=totals[d]) for d in days]


def test_searches_are_counted_in_one_write_per_tenant_and_read_exactly() -> None:
    store = Counters()
    buffer = BufferedUsageCounters(store, interval_s=3600)
    accounting = Accounting(usage=store, search_usage=buffer)
    for tenant in ("acme", "acme", "acme", "globex"):
        with accounting.search(tenant):
            pass
    assert store.writes == []  # nothing written on the searches' path
    (day,) = buffer.days("acme", [accounting.now().date().isoformat()])
    assert day.searches == 3
    assert sorted((t, c["searches"]) for t, _, c in store.writes) == [("acme", 3), ("globex", 1)]


def test_a_full_buffer_is_written_by_the_background_thread() -> None:
    store = Counters()
    buffer = BufferedUsageCounters(store, interval_s=3600, max_pending=2)
    buffer.add("acme", "2026-11-23", {"searches": 1})
    buffer.add("acme", "2026-11-23", {"searches": 1})
    deadline = time.monotonic() + 10
    while not store.writes and time.monotonic() < deadline:
        time.sleep(0.01)
    assert store.writes == [("acme", "2026-11-23", {"searches": 2})]


def test_a_failed_write_is_dropped_not_raised_nor_retried() -> None:
    store = Counters()
    buffer = BufferedUsageCounters(store, interval_s=3600)
    buffer.add("acme", "2026-11-23", {"searches": 1})
    store.failing = True
    buffer.flush()
    store.failing = False
    buffer.flush()
    assert store.writes == []
