"""Operational state: the LLM circuit breaker, queue figures and live-event connections."""

from __future__ import annotations

from enum import StrEnum

from pydantic import Field

from engram.domain.model_base import Model


class BreakerStatus(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"  # one trial call is allowed through


class BreakerState(Model):
    name: str
    status: BreakerStatus = BreakerStatus.CLOSED
    failures: list[float] = Field(default_factory=list)  # epoch seconds of recent outage errors
    opened_at: float = 0.0
    trial_at: float = 0.0
    reason: str = ""
    times_opened: int = 0
    times_closed: int = 0
    version: int = 0


class QueueFigures(Model):
    """The extraction queue of one tenant: gauges now, and totals over a recent window."""

    pending: int = 0
    processing: int = 0
    completed: int = 0
    failed: int = 0
    avg_duration_sec: float = 0.0
    oldest_pending_age_sec: float = 0.0


class EventConnection(Model):
    """An open WebSocket of a tenant, narrowed to one user when user_id is set."""

    connection_id: str
    tenant_id: str
    user_id: str | None = None


class UsageDay(Model):
    """What one tenant used on one UTC day. `memories_stored` is net: memories added minus deleted
    by extraction (it can be negative on a day that mostly corrected); `failed_adds` ran out of tries."""

    date: str  # YYYY-MM-DD
    llm_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    adds: int = 0
    failed_adds: int = 0
    searches: int = 0
    memories_stored: int = 0


USAGE_FIELDS = tuple(n for n in UsageDay.model_fields if n != "date")


class UsageReport(Model):
    from_: str = Field(serialization_alias="from")
    to: str
    days: list[UsageDay]  # every day of the range, oldest first (zeros included)
    totals: UsageDay  # the sums; its date is the range "from..to"


class CheckResult(Model):
    ok: bool
    latency_ms: float
    error: str | None = None
    detail: str | None = None  # e.g. "not configured" for an LLM the deployment does not use


class HealthReport(Model):
    """`/health`: {"status": "ok"}; with deep=true one result per dependency and which are down."""

    status: str  # "ok" | "down"
    checks: dict[str, CheckResult] | None = None
    down: list[str] | None = None
