"""Operational state: the LLM circuit breaker, queue figures and live-event connections."""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, Field


class BreakerStatus(StrEnum):
    CLOSED = "closed"
    OPEN = "open"
    HALF_OPEN = "half_open"  # one trial call is allowed through


class BreakerState(BaseModel):
    name: str
    status: BreakerStatus = BreakerStatus.CLOSED
    failures: list[float] = Field(default_factory=list)  # epoch seconds of recent outage errors
    opened_at: float = 0.0
    trial_at: float = 0.0
    reason: str = ""
    times_opened: int = 0
    times_closed: int = 0
    version: int = 0


class QueueFigures(BaseModel):
    """The extraction queue of one tenant: gauges now, and totals over a recent window."""

    pending: int = 0
    processing: int = 0
    completed: int = 0
    failed: int = 0
    avg_duration_sec: float = 0.0
    oldest_pending_age_sec: float = 0.0


class EventConnection(BaseModel):
    """An open WebSocket of a tenant, narrowed to one user when user_id is set."""

    connection_id: str
    tenant_id: str
    user_id: str | None = None
