"""The operations ports: live task events, the LLM circuit breaker's shared state, queue and usage
counters, and metrics (the data ports are in engram.domain.ports)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from engram.domain.models import Task
from engram.domain.operations import BreakerState, EventConnection, QueueFigures, UsageDay

# --- live task events ---------------------------------------------------------------------------


class EventPublisher(Protocol):
    def publish(self, tenant_id: str, user_id: str, event: dict[str, Any]) -> None:
        """Deliver one task event to the tenant's subscribers (those narrowed to another user excluded).
        Best-effort: a gone subscriber is dropped, never an error for the caller."""
        ...


class BreakerStore(Protocol):
    """The circuit breaker's state, shared by every worker; writes are conditional on the version read."""

    def load(self, name: str) -> BreakerState: ...

    def save(self, state: BreakerState, expected_version: int) -> bool:
        """False when another writer saved first (the caller reloads and decides again)."""
        ...


class QueueMetrics(Protocol):
    """Per-tenant queue counters, kept by atomic increments as tasks move (never by scanning tasks)."""

    def moved(self, tasks: Sequence[Task], source: str | None, target: str) -> None:
        """`tasks` left `source` ("pending" | "processing" | None when new) for `target` ("pending" |
        "processing" | "completed" | "failed"); a batch costs one write per tenant and counter item."""
        ...

    def figures(self, tenant_id: str, window_s: int) -> QueueFigures: ...


class ConnectionStore(Protocol):
    """Open WebSocket connections per tenant (on AWS; the local stack keeps them in memory)."""

    def add(self, connection: EventConnection) -> None: ...

    def subscribe(self, connection_id: str, user_id: str | None) -> None: ...

    def remove(self, connection_id: str) -> None: ...

    def for_tenant(self, tenant_id: str) -> list[EventConnection]: ...


class UsageCounters(Protocol):
    """Per tenant and UTC day, counters kept by atomic increments (one item per tenant per day)."""

    def add(self, tenant_id: str, day: str, counts: Mapping[str, int]) -> None:
        """Adds `counts` (UsageDay field names) to the tenant's counters of `day` (YYYY-MM-DD)."""
        ...

    def days(self, tenant_id: str, days: Sequence[str]) -> list[UsageDay]:
        """The counters of each day asked for, in that order (zeros for a day without use)."""
        ...


class Metrics(Protocol):
    """Operational metrics (CloudWatch EMF on AWS), emitted at the end of each invocation."""

    def add(self, name: str, value: float, unit: str = "Count") -> None:
        """unit: a CloudWatch unit name ("Count", "Milliseconds")."""
        ...

    def flush(self) -> None:
        """Writes what was added since the last flush (nothing when nothing was)."""
        ...
