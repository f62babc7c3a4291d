"""The maintenance workflow port: the state machine that runs a tenant's maintenance steps (Step Functions on AWS,
a thread of the local stack), and what a run looks like."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, Protocol

Step = Literal["repair", "expire", "dedupe", "summarise", "prune"]


@dataclass(frozen=True)
class WorkflowRun:
    execution_id: str
    status: str  # RUNNING | SUCCEEDED | FAILED | TIMED_OUT | ABORTED
    input: dict[str, Any]
    output: Any | None
    started_at: datetime | None
    stopped_at: datetime | None
    error: str | None


class Workflow(Protocol):
    """The maintenance state machine (Step Functions on AWS)."""

    def start(self, name: str, execution_input: dict[str, Any]) -> str:
        """Starts an execution; its id."""
        ...

    def describe(self, execution_id: str) -> WorkflowRun | None:
        """The execution, or None when there is no such execution of this state machine."""
        ...
