"""template.yaml: SAM validates and builds it offline, and it wires what the functions rely on.

The `sam`-marked tests run the SAM CLI named by $SAM_CLI (`make test` always sets it); the rest read the
template with a YAML loader that understands CloudFormation's short tags.
"""

from __future__ import annotations

import ast
import itertools
import json
import os
import re
import subprocess
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engram_tools.local.template import load_yaml

ROOT = Path(__file__).resolve().parents[2]
TEMPLATE = ROOT / "template.yaml"
EVENTS = ROOT / "events"
ASL = ROOT / "statemachines" / "maintenance.asl.json"

EXPECTED_ROUTES = {
    ("GET", "/v1/config"),  # the tenant's memory policy (engram/http/config_routes.py)
    ("PUT", "/v1/config"),
    ("POST", "/v1/config/policy/test"),  # how the policy reads a sentence
    ("GET", "/v1/graph"),  # graph memory (engram/http/graph_routes.py, included by the API handler)
    ("GET", "/v1/graph/entities/{entity_id}"),
    ("DELETE", "/v1/graph/relations/{relation_id}"),
    ("GET", "/health"),
    ("GET", "/openapi.json"),
    ("GET", "/docs"),
    ("POST", "/v1/memories"),
    ("GET", "/v1/memories"),
    ("DELETE", "/v1/memories"),
    ("POST", "/v1/memories/search"),
    ("POST", "/v1/memories/import"),
    ("POST", "/v1/chat/completions"),  # the chat proxy (engram/http/chat_routes.py)
    ("GET", "/v1/memories/{memory_id}"),
    ("PATCH", "/v1/memories/{memory_id}"),
    ("DELETE", "/v1/memories/{memory_id}"),
    ("GET", "/v1/memories/{memory_id}/history"),
    ("GET", "/v1/tasks/{task_id}"),
    ("POST", "/v1/attachments"),
    ("GET", "/v1/attachments/{attachment_id}"),
    ("POST", "/v1/maintenance"),
    ("GET", "/v1/maintenance/{execution_id}"),
    # the memory page and the tenant's users
    ("GET", "/v1/users"),
    ("GET", "/ui"),
    ("GET", "/ui/{name}"),
    ("GET", "/v1/metrics/extraction-queue"),  # live
    ("GET", "/v1/usage"),
}
# AgentCore Memory's data plane (engram/http/agentcore_routes.py): botocore's URIs, IAM-authorised
AGENTCORE_ROUTES = {
    ("POST", "/memories/{memoryId}/events"),
    ("GET", "/memories/{memoryId}/actor/{actorId}/sessions/{sessionId}/events/{eventId}"),
    ("DELETE", "/memories/{memoryId}/actor/{actorId}/sessions/{sessionId}/events/{eventId}"),
    ("POST", "/memories/{memoryId}/actor/{actorId}/sessions/{sessionId}"),
    ("POST", "/memories/{memoryId}/actor/{actorId}/sessions"),
    ("POST", "/memories/{memoryId}/actors"),
    ("POST", "/memories/{memoryId}/ingest"),
    ("POST", "/memories/{memoryId}/retrieve"),
    ("POST", "/memories/{memoryId}/memoryRecords"),
    ("GET", "/memories/{memoryId}/memoryRecord/{memoryRecordId}"),
    ("DELETE", "/memories/{memoryId}/memoryRecords/{memoryRecordId}"),
    ("POST", "/memories/{memoryId}/memoryRecords/batchCreate"),
    ("POST", "/memories/{memoryId}/memoryRecords/batchUpdate"),
    ("POST", "/memories/{memoryId}/memoryRecords/batchDelete"),
    ("POST", "/memories/{memoryId}/extractionJobs"),
    ("POST", "/memories/{memoryId}/extractionJobs/start"),
}
EXPECTED_ROUTES |= AGENTCORE_ROUTES
PUBLIC_ROUTES = {("GET", "/health"), ("GET", "/openapi.json"), ("GET", "/docs"), ("GET", "/ui"), ("GET", "/ui/{name}")}


# ------------------------------------------------------------------ loading


# The same CloudFormation-aware loader the local stack reads the template with.


@cache
def template() -> dict[str, Any]:
    return load_yaml(TEMPLATE)


def resources(kind: str | None = None) -> dict[str, dict[str, Any]]:
    all_resources: dict[str, dict[str, Any]] = template()["Resources"]
    return {name: r for name, r in all_resources.items() if kind is None or r["Type"] == kind}


def functions() -> dict[str, dict[str, Any]]:
    return resources("AWS::Serverless::Function")


def props(name: str) -> dict[str, Any]:
    properties: dict[str, Any] = template()["Resources"][name]["Properties"]
    return properties


def function_setting(name: str, key: str) -> Any:
    return props(name).get(key, template()["Globals"]["Function"].get(key))


@cache
def translated() -> dict[str, Any]:
    """The plain CloudFormation that the SAM transform makes of the template (offline, no AWS calls)."""
    from samtranslator.translator.transform import transform

    class NoManagedPolicyLookups:
        def load(self) -> dict[str, str]:
            # Called only for managed policies named without an ARN; the template names none.
            raise AssertionError("the template must not need an IAM lookup to translate")

    sam_template = load_yaml(TEMPLATE)
    # What `sam package` does first: local code and definition paths become S3 locations.
    for name, resource in sam_template["Resources"].items():
        for key in ("CodeUri", "ContentUri", "DefinitionUri"):
            if key in resource.get("Properties", {}):
                resource["Properties"][key] = f"s3://artifacts/{name}.zip"
    result: dict[str, Any] = transform(sam_template, {}, NoManagedPolicyLookups())
    return result


def sam_env() -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_REGION": "us-east-1",
            "SAM_CLI_TELEMETRY": "0",
        }
    )
    return env


def sam_cli() -> str:
    sam = os.environ.get("SAM_CLI")
    if not sam:
        pytest.skip("SAM_CLI is not set: run through `make test`, which installs aws-sam-cli and sets it")
    return sam


def run_sam(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sam_cli(), *args],
        cwd=ROOT,
        env=sam_env(),
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


# ------------------------------------------------------------------ the SAM CLI


@pytest.mark.sam
def test_sam_validate_lint_passes() -> None:
    result = run_sam("validate", "--lint", "--template", str(TEMPLATE))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "is a valid SAM Template" in result.stdout + result.stderr


@pytest.mark.sam
def test_sam_build_makes_lambda_ready_artifacts(tmp_path: Path) -> None:
    build = tmp_path / "build"
    result = run_sam(
        "build",
        "--template",
        str(TEMPLATE),
        "--build-dir",
        str(build),
        "--no-cached",  # a cache would only leave files in the checkout; each run builds afresh
    )
    assert result.returncode == 0, result.stdout + result.stderr

    built = load_yaml(build / "template.yaml")
    for name in functions():
        assert built["Resources"][name]["Properties"]["CodeUri"] == name
        module = function_setting(name, "Handler").split(".")[0]
        assert (build / name / f"{module}.py").is_file(), f"{name}: handler module missing from the build"

    engram = build / "EngramLayer" / "python" / "engram"
    assert (engram / "__init__.py").is_file()
    assert (engram / "settings.py").is_file()
    # Package data travels with the code: the prompts are read at run time.
    assert list((engram / "prompts").glob("*.txt")), "prompt files missing from the engram layer"
    assert not list(engram.rglob("__pycache__"))
    # What runs only on a developer's machine stays out of the functions.
    assert not (engram / "local").exists() and not (engram / "admin.py").exists()
    assert not (engram.parent / "engram_tools").exists()

    deps = build / "DepsLayer" / "python"
    for package in ("aws_lambda_powertools", "pydantic", "opensearchpy", "openai", "numpy"):
        assert (deps / package).is_dir(), f"{package} missing from the deps layer"
    # Compiled wheels must be Lambda's (CPython 3.12, Linux x86_64), whatever Python ran the build.
    cores = [p.name for p in (deps / "pydantic_core").glob("_pydantic_core*.so")]
    assert cores and all("cpython-312-x86_64-linux-gnu" in n for n in cores), cores
    for local_only in ("onnxruntime", "moto", "boto3", "botocore"):
        assert not (deps / local_only).exists(), f"{local_only} does not belong in the deps layer"


def test_cfn_lint_is_clean() -> None:
    from cfnlint.api import lint_file

    findings = [str(match) for match in lint_file(TEMPLATE)]
    assert findings == []


# ------------------------------------------------------------------ functions, layers, settings


def test_functions_share_runtime_layers_and_tracing() -> None:
    globals_ = template()["Globals"]["Function"]
    assert globals_["Runtime"] == "python3.12"
    assert globals_["Architectures"] == ["x86_64"]
    assert globals_["Tracing"] == "Active"
    assert globals_["Layers"] == [{"Ref": "EngramLayer"}, {"Ref": "DepsLayer"}]
    assert set(functions()) == {
        "ApiFunction",
        "AuthorizerFunction",
        "ExtractionFunction",
        "MaintenanceFunction",
        "WebSocketFunction",
    }
    for name in functions():
        assert "Runtime" not in props(name) and "Layers" not in props(name), f"{name} overrides the globals"
    assert function_setting("ExtractionFunction", "Timeout") == 300
    assert function_setting("ExtractionFunction", "MemorySize") == 1024
    for layer in resources("AWS::Serverless::LayerVersion").values():
        assert layer["Metadata"]["BuildMethod"] == "makefile"
        assert layer["Properties"]["CompatibleRuntimes"] == ["python3.12"]


def test_function_code_needs_no_local_python312() -> None:
    # With a requirements.txt in a function folder, `sam build` would insist on a local python3.12;
    # third-party packages belong to the deps layer instead.
    for name in functions():
        code = ROOT / props(name)["CodeUri"]
        assert not (code / "requirements.txt").exists(), f"{name}: move its requirements to layers/deps"


def test_every_handler_is_defined_in_its_module() -> None:
    for name in functions():
        module, handler = function_setting(name, "Handler").split(".")
        source = ROOT / props(name)["CodeUri"] / f"{module}.py"
        assert source.is_file(), f"{name}: {source} missing"
        body = ast.parse(source.read_text()).body
        defined = {n.name for n in body if isinstance(n, ast.FunctionDef)}
        # A decorated handler may also be bound by assignment (handler = wrap(app)).
        defined |= {t.id for n in body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        assert handler in defined, f"{name}: no {handler} in {source}"


def _resolve_for_settings(value: Any) -> str:
    """A plausible deployed value: parameter defaults, and a placeholder for resource attributes."""
    if isinstance(value, (str, int, float)):
        return str(value)
    if "Ref" in value:
        parameter = template()["Parameters"].get(value["Ref"])
        return str(parameter["Default"]) if parameter else f"resolved-{value['Ref']}"
    if "Fn::If" in value:
        return _resolve_for_settings(value["Fn::If"][1])
    if "Fn::Sub" in value:
        return re.sub(r"\$\{([^}]+)\}", lambda m: _resolve_for_settings({"Ref": m.group(1)}), str(value["Fn::Sub"]))
    if "Fn::GetAtt" in value:
        return "https://resolved.example.com"
    raise AssertionError(f"unexpected intrinsic {value}")


def test_environment_matches_the_settings_model(monkeypatch: pytest.MonkeyPatch) -> None:
    from engram.settings import Settings

    variables: dict[str, Any] = template()["Globals"]["Function"]["Environment"]["Variables"]
    required = {
        "ENGRAM_MEMORY_TABLE", "ENGRAM_TASKS_TABLE", "ENGRAM_KEYS_TABLE", "ENGRAM_IDEMPOTENCY_TABLE",
        "ENGRAM_BUCKET", "ENGRAM_QUEUE_URL", "ENGRAM_INDEX_BACKEND", "ENGRAM_OPENSEARCH_ENDPOINT",
        "ENGRAM_OPENSEARCH_SERVICE", "ENGRAM_EMBEDDER", "ENGRAM_EMBEDDING_MODEL", "ENGRAM_EMBEDDING_DIMS",
        "ENGRAM_LLM_MODEL", "ENGRAM_OPENAI_BASE_URL", "ENGRAM_OPENAI_API_KEY_PARAM",
        "POWERTOOLS_SERVICE_NAME", "POWERTOOLS_METRICS_NAMESPACE", "LOG_LEVEL",
    }  # fmt: skip
    assert required <= set(variables)

    # Every ENGRAM_* variable is a field the settings model reads (a typo would be silently ignored).
    fields = {f"ENGRAM_{name.upper()}" for name in Settings.model_fields}
    assert {v for v in variables if v.startswith("ENGRAM_")} <= fields

    for key, value in variables.items():
        monkeypatch.setenv(key, _resolve_for_settings(value))
    settings = Settings()
    assert settings.index_backend == "opensearch"
    assert settings.embedder == "openai"
    assert settings.opensearch_service == "aoss"
    assert settings.embedding_dims == 1536
    assert settings.opensearch_endpoint is not None and settings.opensearch_endpoint.startswith("https://")
    assert settings.openai_api_key_param == "/engram/openai-api-key"


def test_empty_openai_base_url_is_omitted() -> None:
    value = template()["Globals"]["Function"]["Environment"]["Variables"]["ENGRAM_OPENAI_BASE_URL"]
    condition, when_set, when_empty = value["Fn::If"]
    assert template()["Conditions"][condition] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "OpenAIBaseUrl"}, ""]}]}
    assert when_set == {"Ref": "OpenAIBaseUrl"} and when_empty == {"Ref": "AWS::NoValue"}
    assert template()["Parameters"]["OpenAIBaseUrl"]["Default"] == ""


# ------------------------------------------------------------------ sample events


def test_every_function_has_sample_events() -> None:
    for name in functions():
        prefix = Path(props(name)["CodeUri"]).name
        samples = sorted(EVENTS.glob(f"{prefix}_*.json"))
        assert samples, f"{name}: no events/{prefix}_*.json for `sam local invoke`"
        for sample in samples:
            json.loads(sample.read_text())


def test_api_samples_hit_declared_routes_as_an_authorized_tenant() -> None:
    routes = api_routes()
    samples = sorted(EVENTS.glob("api_*.json"))
    assert len(samples) >= 4
    for sample in samples:
        event = json.loads(sample.read_text())
        route = (event["httpMethod"], event["resource"])
        assert route in routes, f"{sample.name}: {route} is not a route of ApiFunction"
        assert event["requestContext"]["resourcePath"] == event["resource"]
        assert event["headers"]["x-api-key"]
        if route not in PUBLIC_ROUTES:
            # API Gateway passes the authorizer's context only on authorized routes.
            assert event["requestContext"]["authorizer"]["tenant_id"] == "acme", sample.name
        for name in re.findall(r"\{(\w+)\}", event["resource"]):
            assert event["pathParameters"][name] in event["path"]


def test_authorizer_sample_carries_the_identity_header() -> None:
    event = json.loads((EVENTS / "authorizer_request.json").read_text())
    assert event["type"] == "REQUEST"
    assert event["methodArn"].startswith("arn:aws:execute-api:")
    headers = authorizer()["Identity"]["Headers"]
    assert all(event["headers"].get(h) for h in headers)


def test_extraction_sample_is_a_fifo_record_of_a_task() -> None:
    (record,) = json.loads((EVENTS / "extraction_sqs.json").read_text())["Records"]
    body = json.loads(record["body"])
    assert set(body) == {"tenant_id", "task_id", "user_id"}
    assert record["attributes"]["MessageGroupId"] == f"{body['tenant_id']}#{body['user_id']}"
    assert record["messageId"] and record["eventSource"] == "aws:sqs"
    assert record["eventSourceARN"].endswith(".fifo")


def test_maintenance_sample_is_what_the_state_machine_sends() -> None:
    event = json.loads((EVENTS / "maintenance_repair.json").read_text())
    sent = {state["Parameters"]["Payload"]["action"]: state["Parameters"]["Payload"] for state in tasks()}
    assert event["action"] == "repair"
    assert {k.removesuffix(".$") for k in sent["repair"]} == set(event)


# ------------------------------------------------------------------ API


def api_routes() -> dict[tuple[str, str], dict[str, Any]]:
    routes: dict[tuple[str, str], dict[str, Any]] = {}
    for event in props("ApiFunction")["Events"].values():
        assert event["Type"] == "Api"
        route = (event["Properties"]["Method"].upper(), event["Properties"]["Path"])
        assert route not in routes, f"{route} declared twice"
        routes[route] = event["Properties"]
    return routes


def authorizer() -> dict[str, Any]:
    auth = props("EngramApi")["Auth"]
    config: dict[str, Any] = auth["Authorizers"][auth["DefaultAuthorizer"]]
    return config


def test_api_declares_each_route_explicitly() -> None:
    routes = api_routes()
    assert set(routes) == EXPECTED_ROUTES
    assert not [path for _, path in routes if "+}" in path], "no greedy proxy routes"
    for route, properties in routes.items():
        assert properties["RestApiId"] == {"Ref": "EngramApi"}
        expected_auth = {"Authorizer": "NONE"} if route in PUBLIC_ROUTES else None
        if route in AGENTCORE_ROUTES:
            expected_auth = {"Authorizer": "AWS_IAM"}
        assert properties.get("Auth") == expected_auth, route


def test_api_key_authorizer_guards_the_api_by_default() -> None:
    config = authorizer()
    assert config["FunctionPayloadType"] == "REQUEST"
    assert config["FunctionArn"] == {"Ref": "AuthorizerFunction.Alias"}  # the released version (live alias)
    assert config["Identity"] == {"Headers": ["x-api-key"], "ReauthorizeEvery": {"Ref": "AuthorizerCacheSeconds"}}


def handler_routes() -> set[tuple[str, str]]:
    """Routes the API handler registers with the Powertools resolver (`<id>` becomes `{id}`): those of the
    routers it includes (tests/unit/test_route_placement.py keeps app.py free of its own)."""
    found: set[tuple[str, str]] = set()
    sources = [ROOT / "functions" / "api" / "app.py", *(ROOT / "shared" / "engram" / "http").glob("*_routes.py")]
    nodes = [node for source in sources for node in ast.walk(ast.parse(source.read_text()))]
    for node in nodes:
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("app", "router")):
            continue
        method, args = node.func.attr, node.args
        keywords = {k.arg: k.value for k in node.keywords}
        path_node = args[0] if args else keywords.get("rule") or keywords.get("path")
        path = path_node.value if isinstance(path_node, ast.Constant) else None
        if method in {"get", "post", "put", "patch", "delete"} and isinstance(path, str):
            found.add((method.upper(), path))
        elif method == "enable_swagger":
            found.add(("GET", path if isinstance(path, str) else "/swagger"))
    # An AgentCore event id holds "#", which Powertools' parameters do not take: its route reads two halves.
    found = {(m, p.replace("<eventTime>#<eventHash>", "<eventId>")) for m, p in found}
    return {(m, re.sub(r"<(\w+)>", r"{\1}", p)) for m, p in found if p.startswith("/")}


def test_api_handler_serves_exactly_the_template_routes() -> None:
    served = handler_routes()
    if not served:
        pytest.skip("functions/api/app.py registers no routes yet")
    declared = set(api_routes())
    assert served - declared == set(), "the handler serves routes API Gateway does not send it"
    assert declared - served == set(), "API Gateway sends routes the handler does not serve"


# ------------------------------------------------------------------ queue and extraction


def test_fifo_queue_redrives_to_a_fifo_dlq() -> None:
    queue = props("ExtractionQueue")
    assert queue["FifoQueue"] is True
    assert queue["ContentBasedDeduplication"] is False
    redrive = queue["RedrivePolicy"]
    assert redrive["maxReceiveCount"] == 3
    # The function marks a task failed on the last receive, so it must know where the redrive happens.
    extraction_env = props("ExtractionFunction")["Environment"]["Variables"]
    assert int(extraction_env["ENGRAM_MAX_RECEIVES"]) == redrive["maxReceiveCount"]
    dlq_name, attribute = redrive["deadLetterTargetArn"]["Fn::GetAtt"]
    assert attribute == "Arn"
    assert props(dlq_name)["FifoQueue"] is True  # a FIFO queue can only redrive to a FIFO queue
    # Lambda's advice for SQS sources: visibility at least six times the function timeout.
    assert queue["VisibilityTimeout"] >= 6 * function_setting("ExtractionFunction", "Timeout")


def test_extraction_reports_batch_item_failures() -> None:
    (source,) = props("ExtractionFunction")["Events"].values()
    assert source["Type"] == "SQS"
    assert source["Properties"]["Queue"] == {"Fn::GetAtt": ["ExtractionQueue", "Arn"]}
    assert source["Properties"]["BatchSize"] == 10
    assert source["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"]


# ------------------------------------------------------------------ storage


def test_tables_have_the_keys_the_adapters_use() -> None:
    def keys(schema: list[dict[str, str]]) -> list[tuple[str, str]]:
        return [(k["AttributeName"], k["KeyType"]) for k in schema]

    def gsis(table: str) -> dict[str, list[tuple[str, str]]]:
        return {g["IndexName"]: keys(g["KeySchema"]) for g in props(table).get("GlobalSecondaryIndexes", [])}

    assert keys(props("MemoryTable")["KeySchema"]) == [("pk", "HASH"), ("sk", "RANGE")]
    assert gsis("MemoryTable") == {
        "by_user": [("gsi1pk", "HASH"), ("gsi1sk", "RANGE")],
        "by_user_time": [("gsi2pk", "HASH"), ("gsi2sk", "RANGE")],
    }
    assert keys(props("TasksTable")["KeySchema"]) == [("pk", "HASH")]
    assert keys(props("ApiKeysTable")["KeySchema"]) == [("key_hash", "HASH")]
    assert gsis("ApiKeysTable") == {
        "by_tenant": [("tenant_id", "HASH"), ("created_at", "RANGE")],
        "by_key_id": [("key_id", "HASH")],
    }
    assert keys(props("IdempotencyTable")["KeySchema"]) == [("id", "HASH")]
    assert keys(props("ConnectionsTable")["KeySchema"]) == [("pk", "HASH"), ("sk", "RANGE")]
    assert props("TasksTable")["TimeToLiveSpecification"] == {"AttributeName": "expires_at", "Enabled": True}
    assert props("IdempotencyTable")["TimeToLiveSpecification"] == {"AttributeName": "expiration", "Enabled": True}
    for name in resources("AWS::DynamoDB::Table"):
        table = props(name)
        assert table["BillingMode"] == "PAY_PER_REQUEST"
        assert table["PointInTimeRecoverySpecification"] == {"PointInTimeRecoveryEnabled": True}
        assert table["SSESpecification"]["SSEEnabled"] is True  # AWS-managed, or KmsKeyArn
        declared = {a["AttributeName"] for a in table["AttributeDefinitions"]}
        used = {k for k, _ in keys(table["KeySchema"])} | {k for g in gsis(name).values() for k, _ in g}
        assert declared == used, name


def test_bucket_is_private_encrypted_and_expires_payloads() -> None:
    bucket = props("BlobBucket")
    assert all(bucket["PublicAccessBlockConfiguration"].values())
    assert len(bucket["PublicAccessBlockConfiguration"]) == 4
    assert bucket["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    rules = [r for r in bucket["LifecycleConfiguration"]["Rules"] if r.get("Prefix") == "payloads/"]
    assert [(r["Status"], r["ExpirationInDays"]) for r in rules] == [("Enabled", 30)]


# ------------------------------------------------------------------ permissions


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def test_no_policy_allows_every_action_on_every_resource() -> None:
    cfn = translated()
    documents: list[tuple[str, dict[str, Any]]] = []
    for name, resource in cfn["Resources"].items():
        properties = resource.get("Properties", {})
        if resource["Type"] == "AWS::IAM::Role":
            documents += [(name, p["PolicyDocument"]) for p in properties.get("Policies", [])]
        elif resource["Type"] in {"AWS::IAM::ManagedPolicy", "AWS::IAM::Policy"}:
            documents.append((name, properties["PolicyDocument"]))
    assert len(documents) >= 5
    for name, document in documents:
        for statement in _as_list(document["Statement"]):
            if statement["Effect"] != "Allow":
                continue
            actions = [a for a in _as_list(statement["Action"]) if isinstance(a, str)]
            resources_ = _as_list(statement.get("Resource", []))
            assert "*" not in actions, f"{name}: Action '*'"
            if "*" in resources_:
                assert not [a for a in actions if a.endswith(":*")], f"{name}: a whole service on '*'"


def test_authorizer_reads_only_the_api_keys_table() -> None:
    assert props("AuthorizerFunction")["Policies"] == [{"DynamoDBReadPolicy": {"TableName": {"Ref": "ApiKeysTable"}}}]
    # The WebSocket API's $connect is the other key check (the key may come in the query there).
    assert props("WebSocketFunction")["Policies"][0] == {"DynamoDBReadPolicy": {"TableName": {"Ref": "ApiKeysTable"}}}
    for name in functions():
        if name not in ("AuthorizerFunction", "WebSocketFunction"):
            policies = props(name).get("Policies", [])
            if name == "ApiFunction":  # deep health: a lookup by the hash of the key presented, nothing more
                lookup = {
                    "Effect": "Allow",
                    "Action": "dynamodb:GetItem",
                    "Resource": {"Fn::GetAtt": ["ApiKeysTable", "Arn"]},
                }
                policies = [p for p in policies if "Statement" not in p] + [
                    {"Statement": [s for s in p["Statement"] if s != lookup]} for p in policies if "Statement" in p
                ]
            assert "ApiKeysTable" not in json.dumps(policies), name


def test_search_access_is_limited_to_the_collection() -> None:
    statement = props("CollectionAccessPolicyDocument")["PolicyDocument"]["Statement"]
    assert statement == [
        {"Effect": "Allow", "Action": "aoss:APIAccessAll", "Resource": {"Fn::GetAtt": ["VectorCollection", "Arn"]}}
    ]
    assert props("VectorCollection")["Type"] == "VECTORSEARCH"
    # Every function given the IAM permission is also a principal of the collection's data access policy.
    data_policy = props("CollectionDataAccessPolicy")["Policy"]["Fn::Sub"]
    for name in functions():
        has_iam = "CollectionAccessPolicyDocument" in json.dumps(props(name).get("Policies", []))
        assert has_iam == (f"${{{name}Role.Arn}}" in data_policy), name
    assert "AuthorizerFunction" not in data_policy


def test_collection_policies_are_valid_json_for_the_collection() -> None:
    def substituted(name: str, branch: int = 1) -> Any:
        policy = props(name)["Policy"]
        # the encryption policy: a KMS key's (KmsKeyArn) or an AWS-owned key's, by condition
        text = policy["Fn::If"][branch]["Fn::Sub"] if "Fn::If" in policy else policy["Fn::Sub"]
        text = text.replace("${Stage}", "dev").replace("${KmsKeyArn}", "arn:aws:kms:eu-west-1:123456789012:key/k")
        text = re.sub(r"\$\{(\w+)\.Arn\}", r"arn:aws:iam::123456789012:role/\1", text)
        assert "${" not in text
        return json.loads(text)

    assert props("VectorCollection")["Name"] == {"Fn::Sub": "engram-${Stage}"}
    for branch, owned in ((1, False), (2, True)):
        encryption = substituted("CollectionEncryptionPolicy", branch)
        assert encryption["Rules"][0]["Resource"] == ["collection/engram-dev"]
        assert encryption["AWSOwnedKey"] is owned and ("KmsARN" in encryption) is not owned
    (network,) = substituted("CollectionNetworkPolicy")
    assert network["Rules"][0]["Resource"] == ["collection/engram-dev"]
    (data,) = substituted("CollectionDataAccessPolicy")
    assert {r["ResourceType"]: r["Resource"] for r in data["Rules"]} == {
        "collection": ["collection/engram-dev"],
        "index": ["index/engram-dev/*"],
    }
    assert len(data["Principal"]) == 3


# ------------------------------------------------------------------ maintenance workflow


def asl() -> dict[str, Any]:
    definition: dict[str, Any] = json.loads(ASL.read_text())
    return definition


def tasks(definition: dict[str, Any] | None = None) -> list[dict[str, Any]]:
    """The Task states of one level in execution order."""
    definition = definition or asl()["States"]["EachUser"]["Iterator"]
    states, name, ordered = definition["States"], definition["StartAt"], []
    while name:
        state = states[name]
        if state["Type"] != "Task":
            break
        ordered.append(state)
        name = state.get("Next")
    return ordered


def transitions(definition: dict[str, Any]) -> None:
    """Every transition of one level names a state of that level, and every state is reached."""
    states = definition["States"]
    targets = {definition["StartAt"]}
    for state in states.values():
        targets |= {state["Next"]} if "Next" in state else set()
        targets |= {c["Next"] for c in state.get("Catch", []) + state.get("Choices", [])}
        targets |= {state["Default"]} if "Default" in state else set()
        assert state["Type"] in {"Fail", "Succeed", "Choice"} or state.get("End") is True or "Next" in state
        if state["Type"] == "Map":
            transitions(state["Iterator"])
    assert targets == set(states), "every transition names a state, and every state is reached"


def test_state_machine_substitutions_are_all_supplied() -> None:
    machine = props("MaintenanceStateMachine")
    assert (ROOT / machine["DefinitionUri"]).resolve() == ASL
    used = set(re.findall(r"\$\{([^}]+)\}", ASL.read_text()))
    supplied = set(machine["DefinitionSubstitutions"])
    assert used and used == supplied
    assert machine["DefinitionSubstitutions"]["MaintenanceFunctionArn"] == {"Ref": "MaintenanceFunction.Alias"}
    assert machine["Policies"] == [{"LambdaInvokePolicy": {"FunctionName": {"Ref": "MaintenanceFunction"}}}]


def test_state_machine_definition_parses_and_every_transition_lands() -> None:
    from moto.stepfunctions.parser.asl.parse.asl_parser import AmazonStateLanguageParser

    arn = "arn:aws:lambda:us-east-1:123456789012:function:engram-maintenance"
    AmazonStateLanguageParser.parse(ASL.read_text().replace("${MaintenanceFunctionArn}", arn))

    transitions(asl())


def test_state_machine_fans_out_per_user_then_repairs_summarises_prunes_daily() -> None:
    (listing,) = tasks(asl())
    assert listing["Parameters"]["Payload"]["action"] == "list_scopes"
    assert asl()["States"][listing["Catch"][0]["Next"]]["Type"] == "Fail"  # no users listed: the run failed
    each = asl()["States"]["EachUser"]
    assert each["Type"] == "Map" and each["ItemsPath"] == "$.users" and 1 <= each["MaxConcurrency"] <= 40
    steps = tasks()
    assert [s["Parameters"]["Payload"]["action"] for s in steps] == ["repair", "expire", "dedupe", "summarise", "prune"]
    for step in [listing, *steps]:
        assert step["Resource"] == "arn:aws:states:::lambda:invoke"
        assert step["Parameters"]["FunctionName"] == "${MaintenanceFunctionArn}"
        retried = {e for r in step["Retry"] for e in r["ErrorEquals"]}
        assert {"Lambda.ServiceException", "Lambda.TooManyRequestsException"} <= retried
        (catch,) = step["Catch"]
        assert catch["ErrorEquals"] == ["States.ALL"]
    # A user's failed step is recorded and their next step still runs.
    for step, following in itertools.pairwise(steps):
        assert step["Catch"][0]["Next"] == following["Parameters"]["Payload"]["action"].capitalize()
    (schedule,) = props("MaintenanceStateMachine")["Events"].values()
    assert schedule["Type"] == "Schedule"
    assert schedule["Properties"]["Schedule"] == "rate(1 day)"


# ------------------------------------------------------------------ outputs


def test_outputs_name_what_a_client_and_an_operator_need() -> None:
    assert {
        "ApiUrl", "ExtractionQueueUrl", "ExtractionDLQUrl", "MemoryTableName", "TasksTableName",
        "ApiKeysTableName", "IdempotencyTableName", "BlobBucketName", "SearchEndpoint",
        "MaintenanceStateMachineArn",
    } <= set(template()["Outputs"])  # fmt: skip


def test_functions_that_change_memories_may_publish_to_the_event_bus_only() -> None:
    assert resources("AWS::Events::EventBus")["MemoryEventBus"]
    env = template()["Globals"]["Function"]["Environment"]["Variables"]
    assert env["ENGRAM_EVENT_BUS_NAME"] == {"Ref": "MemoryEventBus"}
    put = {"EventBridgePutEventsPolicy": {"EventBusName": {"Ref": "MemoryEventBus"}}}
    for name in ("ApiFunction", "ExtractionFunction", "MaintenanceFunction"):  # every caller of the lifecycle
        assert put in props(name)["Policies"], name
    for name in ("AuthorizerFunction", "WebSocketFunction"):
        assert "EventBridge" not in json.dumps(props(name).get("Policies", [])), name


def test_the_example_webhook_is_off_by_default_and_complete_when_on() -> None:
    doc = template()
    assert doc["Parameters"]["WebhookUrl"]["Default"] == ""
    webhook = {k: v for k, v in doc["Resources"].items() if k.startswith("Webhook")}
    assert {v["Type"] for v in webhook.values()} >= {
        "AWS::Events::Connection",
        "AWS::Events::ApiDestination",
        "AWS::Events::Rule",
        "AWS::IAM::Role",
    }
    assert all(v.get("Condition") == "HasWebhook" for v in webhook.values())
    rule = webhook["WebhookRule"]["Properties"]
    assert rule["EventBusName"] == {"Ref": "MemoryEventBus"}
    [target] = rule["Targets"]
    assert target["Arn"] == {"Fn::GetAtt": ["WebhookDestination", "Arn"]} and "DeadLetterConfig" in target
