"""Maintenance runs started through the API: one tenant's run of chosen steps, and its state.

The tenant goes into the execution's input and the execution's name, so the maintenance function
only touches that tenant, and a run is only shown to the tenant whose input names it.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from engram.domain.errors import NotFoundError
from engram.domain.workflow import Step, Workflow, WorkflowRun


@dataclass
class MaintenanceRuns:
    workflow: Workflow

    def start(self, tenant_id: str, actions: list[Step], user_id: str | None = None) -> str:
        execution_input: dict[str, Any] = {"tenant_id": tenant_id, "user_id": user_id, "actions": actions}
        # Execution names allow 80 characters of [A-Za-z0-9-_]; a uuid keeps them unique.
        return self.workflow.start(f"api-{uuid.uuid4()}", execution_input)

    def get(self, tenant_id: str, execution_id: str) -> WorkflowRun:
        run = self.workflow.describe(execution_id)
        if run is None or run.input.get("tenant_id") != tenant_id:
            raise NotFoundError("maintenance run", execution_id)
        return run
