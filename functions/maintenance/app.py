"""Maintenance function: one step of the Step Functions workflow, or one page of the users it covers.

The event is {"action": ..., "execution_id": ...}, optionally narrowed to one tenant or one user.
A malformed event raises pydantic's ValidationError, which fails the invocation so that the state
machine's Catch sees it; the report dict becomes the step's result.
"""

# No `from __future__ import annotations`: the module may be loaded outside sys.modules (tests load it
# by path), where pydantic cannot resolve postponed annotations of the event model.
from typing import Any, Literal, Self

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.typing import LambdaContext
from pydantic import BaseModel, ConfigDict, Field, model_validator

from engram.bootstrap import container

logger = Logger()
container().settings.require("memory_table", "bucket")


Action = Literal["repair", "dedupe", "summarise", "prune", "expire"]


class ScopeInput(BaseModel):
    """The state machine's own data at ListUsers (its input, then the previous page): extra keys ignored."""

    tenant_id: str | None = Field(default=None, min_length=1)
    user_id: str | None = Field(default=None, min_length=1)
    actions: list[Action] | None = None
    cursor: str | None = None

    @model_validator(mode="after")
    def _user_needs_tenant(self) -> Self:
        if self.user_id is not None and self.tenant_id is None:
            raise ValueError("user_id needs tenant_id")
        return self


class MaintenanceEvent(BaseModel):
    # A misspelt scope key must fail, not silently widen the run to every user.
    model_config = ConfigDict(extra="forbid")

    action: Action | Literal["list_scopes"]
    execution_id: str | None = None
    tenant_id: str | None = Field(default=None, min_length=1)
    user_id: str | None = Field(default=None, min_length=1)
    actions: list[Action] | None = None  # None: every step
    scope: ScopeInput | None = None  # list_scopes only

    @model_validator(mode="after")
    def _user_needs_tenant(self) -> Self:
        if self.user_id is not None and self.tenant_id is None:
            raise ValueError("user_id needs tenant_id")
        return self


@logger.inject_lambda_context(log_event=False)  # the event carries the API key or user content
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    request = MaintenanceEvent.model_validate(event)
    logger.append_keys(action=request.action, execution_id=request.execution_id)
    runner = container().maintenance
    if request.action == "list_scopes":
        scope = request.scope or ScopeInput()
        return runner.list_scopes(scope.tenant_id, scope.user_id, scope.cursor, scope.actions)
    report = runner.run(request.action, request.tenant_id, request.user_id, request.execution_id, request.actions)
    logger.info("maintenance step done", extra={"report": report})
    return report
