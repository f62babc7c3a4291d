"""The maintenance state machine on AWS Step Functions (StartExecution / DescribeExecution)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from engram.adapters.aws.clients import aws_errors, error_code
from engram.domain.workflow import WorkflowRun

if TYPE_CHECKING:
    from mypy_boto3_stepfunctions.client import SFNClient

# An id that is malformed or names no execution is, for the caller, simply not found.
_NOT_FOUND = frozenset({"ExecutionDoesNotExist", "InvalidArn"})


class StepFunctionsWorkflow:
    def __init__(self, client: SFNClient, state_machine_arn: str) -> None:
        self._client = client
        self._arn = state_machine_arn

    def start(self, name: str, execution_input: dict[str, Any]) -> str:
        with aws_errors("maintenance state machine"):
            started = self._client.start_execution(
                stateMachineArn=self._arn, name=name, input=json.dumps(execution_input)
            )
        return started["executionArn"]

    def describe(self, execution_id: str) -> WorkflowRun | None:
        with aws_errors("maintenance state machine"):
            try:
                found = self._client.describe_execution(executionArn=execution_id)
            except ClientError as err:
                if error_code(err) in _NOT_FOUND:
                    return None
                raise
        if found.get("stateMachineArn") != self._arn:
            return None
        output = found.get("output")
        error = ": ".join(x for x in (found.get("error"), found.get("cause")) if x) or None
        return WorkflowRun(
            execution_id=found["executionArn"],
            status=found["status"],
            input=json.loads(found.get("input") or "{}"),
            output=json.loads(output) if output else None,
            started_at=found.get("startDate"),
            stopped_at=found.get("stopDate"),
            error=error,
        )
