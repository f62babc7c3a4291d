"""The sample events in events/ keep the shapes `sam local generate-event` gives for their kind, so that
they stay what API Gateway, SQS and the authorizer send (tests/e2e/test_sam_local_invoke.py runs them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.integration.test_template import run_sam

EVENTS = Path(__file__).resolve().parents[2] / "events"
GENERATED = {
    "api_add_memory.json": ("apigateway", "aws-proxy"),
    "api_get_task.json": ("apigateway", "aws-proxy"),
    "api_health.json": ("apigateway", "aws-proxy"),
    "api_search.json": ("apigateway", "aws-proxy"),
    "authorizer_request.json": ("apigateway", "request-authorizer"),
    "extraction_sqs.json": ("sqs", "receive-message"),
}
# No generator in SAM for these: Step Functions' task input is our own shape, and SAM has no
# WebSocket $connect event (the e2e test runs both through their handlers).
NOT_GENERATED = {"maintenance_repair.json", "websocket_connect.json"}
# API Gateway sends these in REQUEST authorizer events too; SAM's sample leaves them out.
AUTHORIZER_EXTRAS = {"multiValueHeaders", "multiValueQueryStringParameters"}


def generated(service: str, kind: str) -> Any:
    done = run_sam("local", "generate-event", service, kind)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_every_sample_event_has_a_kind() -> None:
    assert {p.name for p in EVENTS.glob("*.json")} == set(GENERATED) | NOT_GENERATED


@pytest.mark.sam
@pytest.mark.parametrize("name", sorted(GENERATED))
def test_sample_event_has_the_generated_shape(name: str) -> None:
    sample = json.loads((EVENTS / name).read_text(encoding="utf-8"))
    reference = generated(*GENERATED[name])
    if name == "authorizer_request.json":
        assert set(reference) <= set(sample) and set(sample) - set(reference) <= AUTHORIZER_EXTRAS
    else:
        assert set(sample) == set(reference)
    if "Records" in reference:
        assert [set(r) for r in sample["Records"]] == [set(reference["Records"][0])] * len(sample["Records"])
        assert set(sample["Records"][0]["attributes"]) <= set(reference["Records"][0]["attributes"]) | {
            "SequenceNumber", "MessageGroupId", "MessageDeduplicationId",  # FIFO queues add these
        }  # fmt: skip
    if "requestContext" in reference and name != "authorizer_request.json":
        # The API function reads the authorizer's context and the stage from here.
        assert set(reference["requestContext"]) - {"authorizer"} <= set(sample["requestContext"])
