"""Load Lambda handlers by file (each function directory is its own code root) and build events."""

from __future__ import annotations

import importlib.util
import json
import uuid
from pathlib import Path
from types import ModuleType
from typing import Any

ROOT = Path(__file__).resolve().parents[2]


def load_function(name: str) -> ModuleType:
    """A fresh import of functions/<name>/app.py under a unique module name."""
    path = ROOT / "functions" / name / "app.py"
    spec = importlib.util.spec_from_file_location(f"fn_{name}_{uuid.uuid4().hex}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class FakeContext:
    function_name = "engram-test"
    memory_limit_in_mb = 512
    invoked_function_arn = "arn:aws:lambda:us-east-1:123456789012:function:engram-test"
    aws_request_id = "req-1"

    def get_remaining_time_in_millis(self) -> int:
        return 60_000


def api_event(
    method: str,
    path: str,
    body: Any = None,
    query: dict[str, str] | None = None,
    tenant: str | None = "acme",
    raw_body: str | None = None,
) -> dict[str, Any]:
    return {
        "resource": path,
        "path": path,
        "httpMethod": method,
        "headers": {"content-type": "application/json", "x-api-key": "k"},
        "multiValueHeaders": {},
        "queryStringParameters": query,
        "multiValueQueryStringParameters": {k: [v] for k, v in (query or {}).items()} or None,
        "pathParameters": None,
        "body": raw_body if raw_body is not None else (json.dumps(body) if body is not None else None),
        "isBase64Encoded": False,
        "requestContext": {
            "requestId": uuid.uuid4().hex,
            "stage": "test",
            "httpMethod": method,
            "path": path,
            "resourcePath": path,
            "identity": {"sourceIp": "127.0.0.1"},
            "authorizer": {"tenant_id": tenant} if tenant else {},
        },
    }


def sqs_record(
    body: dict[str, Any], group: str, receive_count: int = 1, message_id: str | None = None
) -> dict[str, Any]:
    return {
        "messageId": message_id or str(uuid.uuid4()),
        "receiptHandle": "rh",
        "body": json.dumps(body),
        "attributes": {
            "ApproximateReceiveCount": str(receive_count),
            "SentTimestamp": "1700000000000",
            "MessageGroupId": group,
            "MessageDeduplicationId": body["task_id"],
        },
        "messageAttributes": {},
        "md5OfBody": "",
        "eventSource": "aws:sqs",
        "eventSourceARN": "arn:aws:sqs:us-east-1:123456789012:engram-tasks.fifo",
        "awsRegion": "us-east-1",
    }
