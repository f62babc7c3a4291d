"""The local runtime's parts in-process: API Gateway emulation, the SQS poller, snapshots, the ASL runner."""

from __future__ import annotations

import base64
import json
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest
from aws_lambda_powertools.utilities.data_classes.api_gateway_authorizer_event import (
    APIGatewayAuthorizerRequestEvent,
    APIGatewayAuthorizerResponse,
)

from engram_tools.local.api_gateway import ApiGateway, Request
from engram_tools.local.asl import StateMachineRun, StatesError
from engram_tools.local.change_tracker import ChangeTracker
from engram_tools.local.moto_server import MotoServer, MotoState
from engram_tools.local.names import ACCOUNT_ID
from engram_tools.local.persistence import Snapshotter
from engram_tools.local.poller import QueuePoller, failed_ids
from engram_tools.local.provision import Provisioned, provision
from engram_tools.local.template import Template, load_template

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]
REGION = "us-east-1"


@pytest.fixture(scope="module")
def template() -> Template:
    return load_template(ROOT / "template.yaml")


class FakeFunction:
    """Stands in for a LocalFunction: records events, answers with `reply(event)`."""

    def __init__(self, reply: Callable[[dict[str, Any]], Any]) -> None:
        self.reply = reply
        self.events: list[dict[str, Any]] = []

    def invoke(self, event: dict[str, Any]) -> Any:
        self.events.append(event)
        return self.reply(event)


def policy(effect: str, tenant: str = "acme") -> Callable[[dict[str, Any]], Any]:
    """An authorizer answering like ours does (Powertools' policy builder), allowing or denying all."""

    def authorize(event: dict[str, Any]) -> Any:
        arn = APIGatewayAuthorizerRequestEvent(event).parsed_arn
        response = APIGatewayAuthorizerResponse(
            principal_id="k1",
            region=arn.region,
            aws_account_id=arn.aws_account_id,
            api_id=arn.api_id,
            stage=arn.stage,
            context={"tenant_id": tenant},
        )
        response.allow_all_routes() if effect == "Allow" else response.deny_all_routes()
        return response.asdict()

    return authorize


def gateway(template: Template, authorizer: FakeFunction, api: FakeFunction) -> ApiGateway:
    return ApiGateway(template.api, {"AuthorizerFunction": authorizer, "ApiFunction": api}, REGION)  # type: ignore[dict-item]


def ok(event: dict[str, Any]) -> dict[str, Any]:
    return {"statusCode": 200, "headers": {"Content-Type": "application/json"}, "body": "{}"}


def request(method: str, target: str, body: bytes = b"", key: str | None = "k", **headers: str) -> Request:
    pairs = [("Host", "127.0.0.1:3000"), *headers.items()]
    if key is not None:
        pairs.append(("x-api-key", key))
    return Request(method, target, pairs, body, "127.0.0.1")


# ------------------------------------------------------------------ API Gateway


def test_the_api_gets_a_rest_proxy_event_with_the_authorizer_context(template: Template) -> None:
    authorizer, api = FakeFunction(policy("Allow")), FakeFunction(ok)
    reply = gateway(template, authorizer, api).handle(
        request("GET", "/v1/memories/m-1?user_id=u&tag=a&tag=b", **{"Content-Type": "application/json"})
    )

    assert reply.status == 200
    event = api.events[0]
    assert event["resource"] == "/v1/memories/{memory_id}"
    assert event["path"] == "/v1/memories/m-1"
    assert event["httpMethod"] == "GET"
    assert event["pathParameters"] == {"memory_id": "m-1"}
    assert event["queryStringParameters"] == {"user_id": "u", "tag": "b"}
    assert event["multiValueQueryStringParameters"] == {"user_id": ["u"], "tag": ["a", "b"]}
    assert event["requestContext"]["authorizer"]["tenant_id"] == "acme"
    assert event["requestContext"]["stage"] == template.api.stage
    # The path the client sent (no stage: the front serves at the root), so /openapi.json's server is "/".
    assert event["requestContext"]["path"] == "/v1/memories/m-1"
    assert event["requestContext"]["identity"]["sourceIp"] == "127.0.0.1"
    auth_event = authorizer.events[0]
    assert auth_event["type"] == "REQUEST"
    assert auth_event["methodArn"].endswith(f"/{template.api.stage}/GET/v1/memories/m-1")
    assert auth_event["headers"]["x-api-key"] == "k"


def test_literal_paths_win_and_other_methods_are_405(template: Template) -> None:
    api = FakeFunction(ok)
    gw = gateway(template, FakeFunction(policy("Allow")), api)

    assert gw.handle(request("POST", "/v1/memories/search", b"{}")).status == 200
    assert api.events[0]["resource"] == "/v1/memories/search"
    not_allowed = gw.handle(request("GET", "/v1/memories/search"))
    assert not_allowed.status == 405 and ("Allow", "OPTIONS, POST") in not_allowed.headers  # OPTIONS: Cors preflight
    assert gw.handle(request("GET", "/v2/nothing")).status == 404


def test_no_key_is_401_and_a_deny_is_403_without_calling_the_api(template: Template) -> None:
    authorizer, api = FakeFunction(policy("Deny")), FakeFunction(ok)
    gw = gateway(template, authorizer, api)

    assert gw.handle(request("GET", "/v1/memories?user_id=u", key=None)).status == 401
    assert authorizer.events == []
    assert gw.handle(request("GET", "/v1/memories?user_id=u")).status == 403
    assert api.events == []
    assert gw.handle(request("GET", "/health", key=None)).status == 200  # Auth NONE


def test_the_authorizer_result_is_cached_per_key(template: Template) -> None:
    authorizer = FakeFunction(policy("Allow"))
    gw = gateway(template, authorizer, FakeFunction(ok))

    for path in ("/v1/memories?user_id=u", "/v1/tasks/t-1", "/v1/memories/m-2"):
        assert gw.handle(request("GET", path)).status == 200

    assert len(authorizer.events) == 1  # ReauthorizeEvery in the template
    gw.handle(request("GET", "/v1/tasks/t-1", key="other"))
    assert len(authorizer.events) == 2


def test_binary_bodies_are_base64_both_ways(template: Template) -> None:
    png = b"\x89PNG\r\n\x1a\n\x00\xff"
    api = FakeFunction(lambda e: {"statusCode": 200, "body": base64.b64encode(png).decode(), "isBase64Encoded": True})
    reply = gateway(template, FakeFunction(policy("Allow")), api).handle(
        request("POST", "/v1/attachments", png, **{"Content-Type": "application/octet-stream"})
    )

    assert api.events[0]["isBase64Encoded"] is True
    assert base64.b64decode(api.events[0]["body"]) == png
    assert reply.body == png


def test_a_failing_function_is_a_502(template: Template) -> None:
    def boom(event: dict[str, Any]) -> Any:
        raise RuntimeError("bug")

    reply = gateway(template, FakeFunction(policy("Allow")), FakeFunction(boom)).handle(request("GET", "/v1/tasks/t"))

    assert reply.status == 502


# ------------------------------------------------------------------ moto, poller, snapshots


@pytest.fixture
def moto(template: Template) -> Iterator[tuple[MotoServer, ChangeTracker, Provisioned, dict[str, Any]]]:
    tracker = ChangeTracker()
    server = MotoServer(observer=tracker.observe)
    server.start()
    httpx.post(f"{server.endpoint}/moto-api/reset")  # moto's state is per process; start empty
    clients = {
        name: boto3.client(name, endpoint_url=server.endpoint, region_name=REGION) for name in ("dynamodb", "sqs", "s3")
    }
    provisioned = provision(template, clients["dynamodb"], clients["sqs"], clients["s3"])
    yield server, tracker, provisioned, clients
    httpx.post(f"{server.endpoint}/moto-api/reset")
    server.stop()


def test_failed_records_are_retried_then_redriven_to_the_dlq(moto: Any, template: Template) -> None:
    _, _, provisioned, clients = moto
    sqs = clients["sqs"]
    url = provisioned.queue_urls["ExtractionQueue"]
    for task in ("good", "bad"):
        body = json.dumps({"task": task})
        sqs.send_message(QueueUrl=url, MessageBody=body, MessageGroupId=task, MessageDeduplicationId=task)

    def handler(event: dict[str, Any]) -> Any:
        bad = [r["messageId"] for r in event["Records"] if json.loads(r["body"])["task"] == "bad"]
        return {"batchItemFailures": [{"itemIdentifier": i} for i in bad]}

    function = FakeFunction(handler)
    source = template.queue_sources[0]
    arn = provisioned.queue_arns["ExtractionQueue"]
    poller = QueuePoller(sqs, source, url, arn, function, REGION, retry_delay_s=0)  # type: ignore[arg-type]
    dlq = provisioned.queue_urls["ExtractionDLQ"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not _count(sqs, dlq):
        poller.poll_once()

    assert _count(sqs, dlq) == 1 and _count(sqs, url) == 0
    bad_receives = [
        int(r["attributes"]["ApproximateReceiveCount"])
        for e in function.events
        for r in e["Records"]
        if json.loads(r["body"])["task"] == "bad"
    ]
    assert bad_receives == [1, 2, 3]  # maxReceiveCount attempts, then the DLQ
    record = function.events[0]["Records"][0]
    assert record["eventSource"] == "aws:sqs"
    assert record["eventSourceARN"] == provisioned.queue_arns["ExtractionQueue"]
    assert {"MessageGroupId", "MessageDeduplicationId", "SentTimestamp"} <= set(record["attributes"])


def _count(sqs: Any, url: str) -> int:
    attrs = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["All"])["Attributes"]
    return int(attrs["ApproximateNumberOfMessages"]) + int(attrs["ApproximateNumberOfMessagesNotVisible"])


def test_batch_item_failures_follow_lambdas_rules() -> None:
    ids = {"a", "b"}
    assert failed_ids(None, ids) == set()
    assert failed_ids({"batchItemFailures": []}, ids) == set()
    assert failed_ids({"batchItemFailures": [{"itemIdentifier": "a"}]}, ids) == {"a"}
    assert failed_ids({"batchItemFailures": [{"itemIdentifier": "zzz"}]}, ids) == ids  # unknown id: all fail
    assert failed_ids({"batchItemFailures": [{"itemIdentifier": ""}]}, ids) == ids


def test_a_snapshot_restores_into_a_fresh_moto(moto: Any, tmp_path: Path) -> None:
    server, tracker, provisioned, clients = moto
    db, s3, sqs = clients["dynamodb"], clients["s3"], clients["sqs"]
    table, bucket = provisioned.tables["MemoryTable"], provisioned.buckets["BlobBucket"]
    queue_url = provisioned.queue_urls["ExtractionQueue"]
    queue_name = queue_url.rsplit("/", 1)[1]

    def snapshotter() -> Snapshotter:
        return Snapshotter(
            tmp_path,
            list(provisioned.tables.values()),
            list(provisioned.buckets.values()),
            {queue_name: queue_url},
            (s3, sqs),
            MotoState(REGION, ACCOUNT_ID),
            tracker,
        )

    first = snapshotter()
    first.restore()  # nothing saved yet
    item = {"pk": {"S": "T#a"}, "sk": {"S": "F#1"}, "blob": {"B": b"\x00\x01"}, "m": {"M": {"l": {"L": [{"N": "1"}]}}}}
    db.put_item(TableName=table, Item=item)
    s3.put_object(Bucket=bucket, Key="att/1", Body=b"bytes", ContentType="image/png", Metadata={"name": "x.png"})
    sqs.send_message(QueueUrl=queue_url, MessageBody="m1", MessageGroupId="g", MessageDeduplicationId="d1")
    sqs.send_message(QueueUrl=queue_url, MessageBody="m2", MessageGroupId="g", MessageDeduplicationId="d2")
    first.snapshot()  # only what the tracker saw change

    httpx.post(f"{server.endpoint}/moto-api/reset")
    provision(load_template(ROOT / "template.yaml"), db, sqs, s3)
    counts = snapshotter().restore()

    assert counts[table] == 1 and counts[bucket] == 1 and counts[queue_name] == 2
    assert db.get_item(TableName=table, Key={"pk": item["pk"], "sk": item["sk"]})["Item"] == item
    got = s3.get_object(Bucket=bucket, Key="att/1")
    assert got["Body"].read() == b"bytes" and got["ContentType"] == "image/png" and got["Metadata"] == {"name": "x.png"}
    bodies = [m["Body"] for m in sqs.receive_message(QueueUrl=queue_url, MaxNumberOfMessages=10)["Messages"]]
    assert bodies == ["m1", "m2"]  # in order


# ------------------------------------------------------------------ Step Functions


def maintenance(template: Template) -> dict[str, Any]:
    machine = template.state_machines["MaintenanceStateMachine"]
    text = machine.definition_file.read_text().replace("${MaintenanceFunctionArn}", "arn:fn:maintenance")
    definition: dict[str, Any] = json.loads(text)
    return definition


STEPS = ["repair", "expire", "dedupe", "summarise", "prune"]


class FakeMaintenance:
    """The maintenance function as the state machine sees it: pages of users, then one step per call."""

    def __init__(
        self, users: list[str], page: int = 2, fail: Callable[[dict[str, Any]], Exception | None] = lambda p: None
    ) -> None:
        self.users, self.page, self.fail = users, page, fail
        self.steps: list[tuple[str, str]] = []  # (user, action)
        self.pages: list[Any] = []

    def __call__(self, function: str, payload: Any) -> Any:
        assert function == "arn:fn:maintenance" and payload["execution_id"].startswith("arn:exec:")
        error = self.fail(payload)
        if payload["action"] == "list_scopes":
            scope = payload["scope"]
            self.pages.append(scope.get("cursor"))
            if error is not None:
                raise error
            start = int(scope.get("cursor") or 0)
            chunk = self.users[start : start + self.page]
            more = start + self.page < len(self.users)
            return {
                "tenant_id": scope.get("tenant_id"),
                "user_id": None,
                "actions": scope.get("actions"),
                "users": [{"tenant_id": "t1", "user_id": u, "actions": scope.get("actions")} for u in chunk],
                "next_cursor": str(start + self.page) if more else None,
            }
        self.steps.append((payload["user_id"], payload["action"]))
        if error is not None:
            raise error
        return {"done": payload["action"], "user": payload["user_id"]}


def test_the_maintenance_workflow_fans_out_per_user_over_pages(template: Template) -> None:
    fake = FakeMaintenance(["u1", "u2", "u3"], page=2)

    output = StateMachineRun(maintenance(template), fake, "arn:exec:1", sleep=lambda s: None).run({"tenant_id": "t1"})

    assert fake.pages == [None, "2"]  # the second page starts at the first page's cursor
    for user in ["u1", "u2", "u3"]:
        assert [a for u, a in fake.steps if u == user] == STEPS  # every step, in order, for every user
    assert output["cursor"] is None
    assert [r["user_id"] for r in output["reports"]] == ["u3"]  # the last page's per-user reports
    assert output["reports"][0]["prune"] == {"report": {"done": "prune", "user": "u3"}}


def test_one_users_failed_repair_stops_neither_their_later_steps_nor_other_users(template: Template) -> None:
    def fail(payload: dict[str, Any]) -> Exception | None:
        broken = payload.get("user_id") == "u1" and payload["action"] == "repair"
        return RuntimeError("index unreachable") if broken else None

    fake = FakeMaintenance(["u1", "u2"], page=10, fail=fail)

    output = StateMachineRun(maintenance(template), fake, "arn:exec:2", sleep=lambda s: None).run({})

    assert [a for u, a in fake.steps if u == "u1"] == STEPS  # summarise and prune still ran for u1
    assert [a for u, a in fake.steps if u == "u2"] == STEPS
    u1 = output["reports"][0]
    assert u1["repair"] == {"Error": "RuntimeError", "Cause": "index unreachable"}
    assert u1["prune"] == {"report": {"done": "prune", "user": "u1"}}


def test_a_service_error_is_retried_with_backoff(template: Template) -> None:
    sleeps: list[float] = []
    throttled: list[int] = []

    def fail(payload: dict[str, Any]) -> Exception | None:
        if payload["action"] == "summarise" and len(throttled) < 2:
            throttled.append(1)
            return StatesError("Lambda.ServiceException", "throttled")
        return None

    fake = FakeMaintenance(["u1"], fail=fail)
    StateMachineRun(maintenance(template), fake, "arn:exec:3", sleep=sleeps.append).run({})

    assert [a for _, a in fake.steps] == ["repair", "expire", "dedupe", "summarise", "summarise", "summarise", "prune"]
    assert sleeps == [2, 4]  # IntervalSeconds 2, BackoffRate 2


def test_failing_to_list_users_fails_the_execution(template: Template) -> None:
    fake = FakeMaintenance(["u1"], fail=lambda p: RuntimeError("table gone") if p["action"] == "list_scopes" else None)

    with pytest.raises(StatesError) as failed:
        StateMachineRun(maintenance(template), fake, "arn:exec:4", sleep=lambda s: None).run({})

    assert failed.value.error == "MaintenanceFailed"
    assert fake.steps == []
