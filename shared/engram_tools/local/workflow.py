"""The maintenance state machine for `make run`: POST /v1/maintenance runs it on the local ASL runner.

moto's Step Functions would not call our handlers (its Lambda runs code in Docker), so a started run
executes in a background thread here and its state is kept in memory until the stack stops.
"""

from __future__ import annotations

import logging
import threading
from datetime import UTC, datetime
from typing import Any

from engram.domain.workflow import WorkflowRun
from engram_tools.local.asl import StatesError
from engram_tools.local.scheduler import Scheduler

log = logging.getLogger("engram_tools.local")
MAINTENANCE = "MaintenanceStateMachine"  # the template's logical id


class LocalWorkflow:
    def __init__(self, scheduler: Scheduler, machine_id: str) -> None:
        self._scheduler = scheduler
        self._machine_id = machine_id
        self._runs: dict[str, WorkflowRun] = {}
        self._lock = threading.Lock()

    def start(self, name: str, execution_input: dict[str, Any]) -> str:
        arn = self._scheduler.execution_arn(self._machine_id, name)
        self._set(WorkflowRun(arn, "RUNNING", execution_input, None, datetime.now(UTC), None, None))
        threading.Thread(target=self._run, args=(arn, name, execution_input), daemon=True, name=name).start()
        return arn

    def describe(self, execution_id: str) -> WorkflowRun | None:
        with self._lock:
            return self._runs.get(execution_id)

    def _run(self, arn: str, name: str, execution_input: dict[str, Any]) -> None:
        started = self._runs[arn].started_at
        try:
            output = self._scheduler.run_machine(self._machine_id, execution_input, name)
        except StatesError as err:
            self._set(WorkflowRun(arn, "FAILED", execution_input, None, started, datetime.now(UTC), str(err)))
            return
        except Exception as err:  # a bug in the runner: the run is shown failed, not RUNNING forever
            log.exception("maintenance run %s failed", arn)
            self._set(WorkflowRun(arn, "FAILED", execution_input, None, started, datetime.now(UTC), repr(err)))
            return
        self._set(WorkflowRun(arn, "SUCCEEDED", execution_input, output, started, datetime.now(UTC), None))

    def _set(self, run: WorkflowRun) -> None:
        with self._lock:
            self._runs[run.execution_id] = run
