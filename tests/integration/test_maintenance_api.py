"""POST /v1/maintenance and GET /v1/maintenance/{id} over moto's Step Functions."""

from __future__ import annotations

import json
from typing import Any

import boto3
import pytest

from tests.integration.stack import Stack

PASS_MACHINE = {"StartAt": "Done", "States": {"Done": {"Type": "Pass", "End": True}}}


@pytest.fixture
def machine(stack: Stack) -> str:
    client = boto3.client("stepfunctions", region_name="us-east-1")
    role = "arn:aws:iam::123456789012:role/engram-maintenance"
    arn = client.create_state_machine(name="engram-maintenance", definition=json.dumps(PASS_MACHINE), roleArn=role)[
        "stateMachineArn"
    ]
    stack.container.settings = stack.container.settings.model_copy(update={"maintenance_state_machine_arn": arn})
    return str(arn)


def test_a_run_is_started_for_the_callers_tenant_and_shown_to_it(machine: str, call: Any) -> None:
    status, started = call("POST", "/v1/maintenance", {"actions": ["dedupe", "prune"], "user_id": "alice"})

    assert status == 202 and started["status"] == "RUNNING"
    execution = boto3.client("stepfunctions", region_name="us-east-1").describe_execution(
        executionArn=started["execution_id"]
    )
    assert execution["stateMachineArn"] == machine
    # The tenant comes from the API key, so the run touches only the caller's memories.
    assert json.loads(execution["input"]) == {"tenant_id": "acme", "user_id": "alice", "actions": ["dedupe", "prune"]}
    status, run = call("GET", f"/v1/maintenance/{started['execution_id']}")
    assert status == 200
    assert run["execution_id"] == started["execution_id"]
    assert (run["actions"], run["user_id"]) == (["dedupe", "prune"], "alice")
    assert run["status"] in {"RUNNING", "SUCCEEDED"}


def test_another_tenants_run_and_an_unknown_id_answer_404(machine: str, call: Any) -> None:
    _, started = call("POST", "/v1/maintenance", {"actions": ["repair"]})

    status, body = call("GET", f"/v1/maintenance/{started['execution_id']}", tenant="globex")
    assert status == 404, body
    status, _ = call("GET", f"/v1/maintenance/{machine.replace(':stateMachine:', ':execution:')}:nope")
    assert status == 404
    status, _ = call("GET", "/v1/maintenance/not-an-arn")
    assert status == 404


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"actions": ["vacuum"]}, "actions"),
        ({"actions": []}, "actions"),
        ({"actions": ["prune"], "user_id": ""}, "user_id"),
    ],
)
def test_a_bad_request_names_the_field(machine: str, call: Any, body: dict[str, Any], field: str) -> None:
    status, answer = call("POST", "/v1/maintenance", body)

    assert status == 422
    assert field in json.dumps(answer)
