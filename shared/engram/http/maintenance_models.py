"""Request and response bodies of the maintenance routes (POST /v1/maintenance, GET /v1/maintenance/{id})."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pydantic import Field

from engram.domain.limits import ScopeId
from engram.domain.model_base import Model
from engram.domain.workflow import Step, WorkflowRun
from engram.http.models import Strict


class MaintenanceBody(Strict):
    # Order does not matter: the workflow always runs repair, expire, dedupe, summarise, prune.
    actions: list[Step] = Field(min_length=1, max_length=5)
    user_id: ScopeId | None = None  # None: every user of the caller's tenant


class MaintenanceStarted(Model):
    execution_id: str
    status: str = "RUNNING"


class MaintenanceRunView(Model):
    execution_id: str
    status: str
    actions: list[Step] | None
    user_id: str | None
    started_at: datetime | None
    stopped_at: datetime | None
    error: str | None
    report: Any | None  # the execution's output: the last page's per-user step reports

    @classmethod
    def of(cls, run: WorkflowRun) -> MaintenanceRunView:
        return cls(
            execution_id=run.execution_id,
            status=run.status,
            actions=run.input.get("actions"),
            user_id=run.input.get("user_id"),
            started_at=run.started_at,
            stopped_at=run.stopped_at,
            error=run.error,
            report=run.output,
        )
