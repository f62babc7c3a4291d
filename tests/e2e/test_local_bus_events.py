"""Memory and task events on the local stack's EventBridge bus (moto's), routed by a user's own rules
to SQS queues, as a deployment's users route them to Lambda, SQS or webhooks (docs/events.md)."""

from __future__ import annotations

import json
import time
import uuid
from typing import Any

import boto3
import pytest

from tests.e2e.stack_process import Api, StackProcess

pytestmark = pytest.mark.e2e

BUS = "engram-local-MemoryEventBus"


def subscribe(events: Any, sqs: Any, name: str, pattern: dict[str, Any]) -> str:
    """A queue and a rule on the bus sending it what matches `pattern`; returns the queue URL."""
    url = sqs.create_queue(QueueName=name)["QueueUrl"]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    events.put_rule(Name=name, EventBusName=BUS, EventPattern=json.dumps(pattern))
    events.put_targets(Rule=name, EventBusName=BUS, Targets=[{"Id": "queue", "Arn": arn}])
    return url


def drain(sqs: Any, url: str, wanted: int, timeout_s: float = 30) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline and len(got) < wanted:
        reply = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10, WaitTimeSeconds=1)
        got += [json.loads(m["Body"]) for m in reply.get("Messages", [])]
    return got


def test_add_update_delete_reach_the_tenants_rule_and_no_other(stack: StackProcess, acme: Api) -> None:
    session = boto3.session.Session(region_name="us-east-1", aws_access_key_id="test", aws_secret_access_key="test")
    events = session.client("events", endpoint_url=stack.moto_endpoint)
    sqs = session.client("sqs", endpoint_url=stack.moto_endpoint)
    user = f"bus-{uuid.uuid4().hex[:8]}"
    mine = subscribe(
        events, sqs, f"acme-{user}", {"source": ["engram"], "detail": {"user_id": [user], "tenant_id": ["acme"]}}
    )
    other = subscribe(events, sqs, f"globex-{user}", {"source": ["engram"], "detail": {"tenant_id": ["globex"]}})

    acme.remember(user, "I live in Berlin")
    [memory] = acme.memories(user)
    patched = acme.request("PATCH", f"/v1/memories/{memory['id']}", json={"text": "I live in Munich"})
    assert patched.status_code == 200, patched.text
    assert acme.request("DELETE", f"/v1/memories/{memory['id']}").status_code == 200

    received = drain(sqs, mine, 4)
    kinds = [(e["detail-type"], e["detail"].get("memory_id"), e["detail"].get("version")) for e in received]
    assert ("memory.added", memory["id"], 1) in kinds
    assert ("memory.updated", memory["id"], 2) in kinds
    assert ("memory.deleted", memory["id"], 3) in kinds
    [completed] = [e["detail"] for e in received if e["detail-type"] == "task.completed"]
    assert completed["memories"] == [{"memory_id": memory["id"], "event": "ADD"}]
    for event in received:
        assert event["source"] == "engram"
        assert event["detail"]["tenant_id"] == "acme" and event["detail"]["user_id"] == user
        assert "memory" not in event["detail"], "the text is sent only when the tenant opts in"
        assert "Berlin" not in json.dumps(event) and "Munich" not in json.dumps(event)
    assert drain(sqs, other, 1, timeout_s=3) == []
