"""Every sample event in events/ through its function, as `sam local invoke ... --env-vars .engram/env.json`
runs it against `make run` (sam_invoke.py says how; Docker is not needed for that)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import uuid
from pathlib import Path
from typing import Any

import boto3
import pytest

from engram_tools.local.names import physical_name
from engram_tools.local.sam_env import CONTAINER_DATA_DIR, DEFAULT_DOCKER_HOST
from engram_tools.local.template import load_yaml
from tests.e2e.conftest import ACME_KEY
from tests.e2e.sam_invoke import EVENTS, REGION, ROOT, event, function_environment, invoke
from tests.e2e.stack_process import Api, StackProcess


@pytest.fixture(scope="module")
def env_file(stack: StackProcess) -> Path:
    return stack.data_dir / "env.json"


def moto(stack: StackProcess, service: str) -> Any:
    return boto3.client(
        service,
        endpoint_url=stack.moto_endpoint,
        region_name=REGION,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def body(response: dict[str, Any]) -> Any:
    return json.loads(response["body"])


def create_key(env_file: Path, tenant: str, tmp_path: Path) -> str:
    """A key in the local stack's keys table, made by the operator CLI with the functions' variables."""
    env = {
        "PATH": "",
        "AWS_REGION": REGION,
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        **function_environment(env_file, "AuthorizerFunction", tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-m", "engram_tools.admin", "keys", "create", "--tenant", tenant],
        env=env, cwd=ROOT, capture_output=True, text=True, check=True, timeout=60,
    )  # fmt: skip
    found = re.search(r"^key:\s+(\S+)$", done.stdout, re.MULTILINE)
    assert found, done.stdout
    return found.group(1)


def test_env_file_names_every_function_and_the_running_moto(stack: StackProcess, env_file: Path) -> None:
    document = json.loads(env_file.read_text(encoding="utf-8"))
    doc = load_yaml(ROOT / "template.yaml")
    functions = {k: v for k, v in doc["Resources"].items() if v["Type"] == "AWS::Serverless::Function"}
    assert set(document) == {"Parameters", *functions}
    declared_globally = set(doc["Globals"]["Function"]["Environment"]["Variables"])
    for name, resource in functions.items():
        own = set(resource["Properties"].get("Environment", {}).get("Variables", {}))
        # SAM applies only declared variables: each one has a value, and nothing else is written.
        assert set(document[name]) == declared_globally | own, name
        values = document[name]
        assert values["ENGRAM_AWS_ENDPOINT_URL"] == f"http://{DEFAULT_DOCKER_HOST}:{stack.moto_port}"
        assert values["ENGRAM_DATA_DIR"] == CONTAINER_DATA_DIR
        assert (values["ENGRAM_INDEX_BACKEND"], values["ENGRAM_EMBEDDER"]) == ("embedded", "local")
        assert values["ENGRAM_OPENSEARCH_ENDPOINT"] == values["ENGRAM_OPENAI_API_KEY_PARAM"] == ""
    # The names are the running stack's: they exist in its moto.
    tables = {v for k, v in document["Parameters"].items() if k.endswith("_TABLE")}
    assert tables and tables <= set(moto(stack, "dynamodb").list_tables()["TableNames"])
    queue_url = document["Parameters"]["ENGRAM_QUEUE_URL"].replace(DEFAULT_DOCKER_HOST, "127.0.0.1")
    assert queue_url.endswith(physical_name("ExtractionQueue", fifo=True))
    moto(stack, "sqs").get_queue_attributes(QueueUrl=queue_url, AttributeNames=["QueueArn"])
    bucket = document["Parameters"]["ENGRAM_BUCKET"]
    assert bucket in {b["Name"] for b in moto(stack, "s3").list_buckets()["Buckets"]}


def test_health_event(env_file: Path, tmp_path: Path) -> None:
    response = invoke(env_file, "ApiFunction", event("api_health.json"), tmp_path)
    assert response["statusCode"] == 200
    assert body(response) == {"status": "ok"}


@pytest.fixture(scope="module")
def added(stack: StackProcess, env_file: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """api_add_memory.json through the API function; the running stack's poller extracts the task."""
    response = invoke(env_file, "ApiFunction", event("api_add_memory.json"), tmp_path_factory.mktemp("add"))
    assert response["statusCode"] == 202, response
    task = Api(stack, ACME_KEY).wait(body(response)["task_id"])  # tenant acme: the event's authorizer context
    assert task["status"] == "completed", task
    return dict(task)


def test_add_event_queues_a_task_the_running_stack_extracts(stack: StackProcess, added: dict[str, Any]) -> None:
    texts = " ".join(m["memory"] for m in Api(stack, ACME_KEY).memories("alice"))
    assert "Lisbon" in texts and "peanut" in texts


def test_get_task_event(env_file: Path, added: dict[str, Any], tmp_path: Path) -> None:
    sample = event("api_get_task.json")
    response = invoke(env_file, "ApiFunction", sample, tmp_path / "sample")
    assert response["statusCode"] == 404, response  # the sample's task id was never created
    task_id = added["task_id"]
    sample["path"] = sample["requestContext"]["path"] = f"/v1/tasks/{task_id}"
    sample["pathParameters"] = {"task_id": task_id}
    response = invoke(env_file, "ApiFunction", sample, tmp_path / "real")
    assert response["statusCode"] == 200, response
    assert (body(response)["task_id"], body(response)["status"]) == (task_id, "completed")


def test_search_event_reads_the_container_scratch_index(env_file: Path, added: dict[str, Any], tmp_path: Path) -> None:
    response = invoke(env_file, "ApiFunction", event("api_search.json"), tmp_path)
    assert response["statusCode"] == 200, response
    # The stack's index is in its own process; a container has only its fresh /tmp (docs/sam-local.md says so).
    assert body(response)["results"] == []


def test_extraction_event_processes_a_real_task(stack: StackProcess, env_file: Path, tmp_path: Path) -> None:
    sqs = moto(stack, "sqs")
    # Queued where no poller reads (a queue of this test's own: the dead-letter queue holds other tests'
    # messages), so that this invoke is what processes it.
    name = f"sam-invoke-{uuid.uuid4().hex[:8]}.fifo"
    own = sqs.create_queue(QueueName=name, Attributes={"FifoQueue": "true"})["QueueUrl"]
    add = event("api_add_memory.json")
    add["body"] = json.dumps({"user_id": "sam-carol", "messages": [{"role": "user", "content": "I live in Porto."}]})
    queued = invoke(env_file, "ApiFunction", add, tmp_path / "add", ENGRAM_QUEUE_URL=own)
    assert queued["statusCode"] == 202, queued
    task_id = body(queued)["task_id"]
    message = sqs.receive_message(QueueUrl=own, AttributeNames=["All"], WaitTimeSeconds=2)["Messages"][0]
    assert json.loads(message["Body"])["task_id"] == task_id

    sample = event("extraction_sqs.json")
    record = sample["Records"][0]
    record.update({"messageId": message["MessageId"], "body": message["Body"], "md5OfBody": message["MD5OfBody"]})
    record["attributes"]["MessageGroupId"] = message["Attributes"]["MessageGroupId"]
    response = invoke(env_file, "ExtractionFunction", sample, tmp_path / "extract")
    assert response == {"batchItemFailures": []}
    api = Api(stack, ACME_KEY)
    assert api.wait(task_id, timeout_s=5)["status"] == "completed"
    assert any("Porto" in m["memory"] for m in api.memories("sam-carol"))


def test_extraction_sample_event_as_is_fails_its_record(env_file: Path, tmp_path: Path) -> None:
    response = invoke(env_file, "ExtractionFunction", event("extraction_sqs.json"), tmp_path)
    # Its task id was never created: the record goes back to the queue (a partial batch failure).
    assert response == {"batchItemFailures": [{"itemIdentifier": "059f36b4-87a3-44ab-83d2-661975830a7d"}]}


def test_authorizer_event(env_file: Path, tmp_path: Path) -> None:
    sample = event("authorizer_request.json")
    denied = invoke(env_file, "AuthorizerFunction", sample, tmp_path / "sample")
    assert denied["policyDocument"]["Statement"][0]["Effect"] == "Deny"  # the sample key is no key

    key = create_key(env_file, "acme", tmp_path / "admin")
    sample["headers"]["x-api-key"] = key
    sample["multiValueHeaders"]["x-api-key"] = [key]
    allowed = invoke(env_file, "AuthorizerFunction", sample, tmp_path / "real")
    statement = allowed["policyDocument"]["Statement"][0]
    assert statement["Effect"] == "Allow"
    assert statement["Resource"][0].startswith("arn:aws:execute-api:us-east-1:123456789012:a1b2c3d4e5/dev/")
    assert allowed["context"]["tenant_id"] == "acme"


def test_websocket_connect_event(stack: StackProcess, env_file: Path, tmp_path: Path) -> None:
    sample = event("websocket_connect.json")
    assert invoke(env_file, "WebSocketFunction", sample, tmp_path / "sample") == {"statusCode": 401}
    sample["headers"]["x-api-key"] = create_key(env_file, "acme", tmp_path / "admin")
    assert invoke(env_file, "WebSocketFunction", sample, tmp_path / "real") == {"statusCode": 200}
    items = moto(stack, "dynamodb").scan(TableName=physical_name("ConnectionsTable"))["Items"]
    mine = [i for i in items if "L0SM9cOFvHcCIhw=" in json.dumps(i)]
    assert mine and "acme" in json.dumps(mine[0]) and "alice" in json.dumps(mine[0])


def test_maintenance_event(env_file: Path, tmp_path: Path) -> None:
    report = invoke(env_file, "MaintenanceFunction", event("maintenance_repair.json"), tmp_path)
    assert "errorType" not in report, report
    assert report["action"] == "repair"


def test_every_event_is_executed_by_a_test() -> None:
    here = Path(__file__).read_text(encoding="utf-8")
    assert {p.name for p in EVENTS.glob("*.json")} == set(re.findall(r'event\("([a-z_]+\.json)"\)', here))
