"""template.yaml ready for production (issue 37): logs that say who did what, limits that protect the
account, alarms and a dashboard on metrics the code emits, deployments that roll back, options for
regulated users; and the development and production presets (samconfig.toml) both lint."""

from __future__ import annotations

import json
import math
import re
import shlex
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from engram_tools.local.template import load_template
from tests.integration.test_template import ROOT, TEMPLATE, functions, props, resources, run_sam, template, translated

NO_VALUE = {"Ref": "AWS::NoValue"}
SHARED = ROOT / "shared" / "engram"  # the functions' code (the layer)

# A regulated user's additions to the production preset: every optional parameter set.
REGULATED = {
    "AlarmTopicArn": "arn:aws:sns:eu-west-1:123456789012:engram-alarms",
    "KmsKeyArn": "arn:aws:kms:eu-west-1:123456789012:key/1234abcd-12ab-34cd-56ef-1234567890ab",
    "WebAclArn": "arn:aws:wafv2:eu-west-1:123456789012:regional/webacl/engram/a1b2c3",
    "SearchMasterUserArn": "arn:aws:iam::123456789012:role/engram-search-admin",
    "ApiGatewayLogRole": "false",
}


def presets() -> dict[str, dict[str, str]]:
    """samconfig.toml's deploy presets (what `sam deploy` and `sam deploy --config-env prod` use)."""
    config = tomllib.loads((ROOT / "samconfig.toml").read_text(encoding="utf-8"))

    def overrides(env: str) -> dict[str, str]:
        pairs = shlex.split(config[env]["deploy"]["parameters"]["parameter_overrides"])
        return dict(pair.split("=", 1) for pair in pairs)

    dev, prod = overrides("default"), overrides("prod")
    return {"development": dev, "production": prod, "regulated": {**prod, **REGULATED}}


def with_parameters(values: dict[str, str], path: Path) -> Path:
    """A copy of the template whose parameter defaults are `values` (as a deploy would pass them)."""
    text = TEMPLATE.read_text(encoding="utf-8")
    doc = template()
    for name, value in values.items():
        spec = doc["Parameters"][name]
        old = f"  {name}:\n    Type: {spec['Type']}\n    Default: "
        start = text.index(old) + len(old)
        end = text.index("\n", start)
        literal = value if spec["Type"] == "Number" else json.dumps(value)
        text = text[:start] + literal + text[end:]
    path.write_text(text, encoding="utf-8")
    return path


# ------------------------------------------------------------------ presets


@pytest.mark.parametrize("preset", ["development", "production", "regulated"])
def test_each_preset_lints_and_transforms(preset: str, tmp_path: Path) -> None:
    from cfnlint.api import lint_file

    values = presets()[preset]
    for name, value in values.items():
        spec = template()["Parameters"][name]
        if "AllowedValues" in spec:
            assert value in [str(v) for v in spec["AllowedValues"]], (name, value)
        if "AllowedPattern" in spec:
            assert re.fullmatch(spec["AllowedPattern"], value), (name, value)
    copy = with_parameters(values, tmp_path / "template.yaml")
    assert [str(m) for m in lint_file(copy)] == []


@pytest.mark.sam
@pytest.mark.parametrize("preset", ["development", "production"])
def test_sam_validate_lint_passes_with_each_preset(preset: str, tmp_path: Path) -> None:
    copy = with_parameters(presets()[preset], tmp_path / "template.yaml")
    result = run_sam("validate", "--lint", "--template", str(copy))
    assert result.returncode == 0, result.stdout + result.stderr


def test_development_deploys_at_once_and_production_by_canary() -> None:
    assert presets()["development"]["DeploymentType"] == "AllAtOnce"
    assert presets()["production"]["DeploymentType"].startswith("Canary")
    assert presets()["production"]["ReserveConcurrency"] == "true"
    assert template()["Parameters"]["DeploymentType"]["Default"] == "AllAtOnce"


# ------------------------------------------------------------------ logs


def access_log_format(value: str) -> dict[str, str]:
    """The format as the JSON line API Gateway writes (each $context variable a string)."""
    line = re.sub(r"\$context\.[A-Za-z0-9_.]+", "x", value)
    parsed: dict[str, str] = json.loads(line)
    return dict(zip(parsed, re.findall(r'"(\$context\.[A-Za-z0-9_.]+)"', value), strict=True))


def test_both_apis_write_json_access_logs_with_the_tenant_never_the_key() -> None:
    rest = access_log_format(props("EngramApi")["AccessLogSetting"]["Format"])
    assert rest["tenantId"] == "$context.authorizer.tenant_id" and rest["keyId"] == "$context.authorizer.key_id"
    assert rest["route"] == "$context.resourcePath"  # the route template: no query string
    ws = access_log_format(props("EventsStage")["AccessLogSettings"]["Format"])
    assert ws["connectionId"] == "$context.connectionId"
    for fields in (rest, ws):
        assert {"requestId", "ip", "status", "time"} <= set(fields)
        variables = " ".join(fields.values()).lower()
        for secret in ("apikey", "api_key", "identity.apikey", "$input", "requestoverride", "querystring"):
            assert secret not in variables
    assert props("EngramApi")["AccessLogSetting"]["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}
    stage = next(r for r in translated()["Resources"].values() if r["Type"] == "AWS::ApiGateway::Stage")
    assert stage["Properties"]["AccessLogSetting"]["DestinationArn"] == {"Fn::GetAtt": ["ApiAccessLogGroup", "Arn"]}
    [settings] = stage["Properties"]["MethodSettings"]
    assert settings["LoggingLevel"] == "ERROR" and settings["DataTraceEnabled"] is False  # never bodies


def test_every_log_group_keeps_logs_for_the_retention_parameter_under_the_key() -> None:
    groups = resources("AWS::Logs::LogGroup")
    assert len(groups) >= 10
    for name, group in groups.items():
        assert group["Properties"]["RetentionInDays"] == {"Ref": "LogRetentionDays"}, name
        assert group["Properties"]["KmsKeyId"] == {"Fn::If": ["HasKmsKey", {"Ref": "KmsKeyArn"}, NO_VALUE]}, name
    for fn in functions():  # each function's own group, so none is created without retention
        assert any(f"${{{fn}}}" in str(g["Properties"]["LogGroupName"]) for g in groups.values()), fn


def test_opensearch_publishes_slow_error_and_audit_logs_and_the_bucket_access_logs() -> None:
    options = props("SearchDomain")["LogPublishingOptions"]
    assert {"SEARCH_SLOW_LOGS", "INDEX_SLOW_LOGS", "ES_APPLICATION_LOGS", "AUDIT_LOGS"} <= set(options)
    assert options["AUDIT_LOGS"]["Fn::If"][0] == "HasSearchMasterUser"  # audit logs need fine-grained access
    assert props("SearchDomain")["AdvancedSecurityOptions"]["Fn::If"][0] == "HasSearchMasterUser"
    logging = props("BlobBucket")["LoggingConfiguration"]
    assert logging["DestinationBucketName"] == {"Ref": "AccessLogBucket"}
    [rule] = [r for r in props("AccessLogBucket")["LifecycleConfiguration"]["Rules"] if "ExpirationInDays" in r]
    assert rule["ExpirationInDays"] == {"Ref": "LogRetentionDays"}


# ------------------------------------------------------------------ limits


def extraction_workers(requests_per_minute: int) -> int:
    """docs/operations.md: floor(RPM x 0.8 x 2 s / 60 s), within SQS's 2..1000."""
    return min(1000, max(2, math.floor(requests_per_minute * 0.8 * 2 / 60)))


def test_the_extraction_limit_follows_the_llm_rate_by_the_documented_formula() -> None:
    table = template()["Mappings"]["ExtractionConcurrency"]
    allowed = template()["Parameters"]["LlmRequestsPerMinute"]["AllowedValues"]
    assert sorted(table, key=int) == [str(v) for v in allowed]
    for rpm, row in table.items():
        assert row["Workers"] == extraction_workers(int(rpm)), rpm
    workers = {"Fn::FindInMap": ["ExtractionConcurrency", {"Ref": "LlmRequestsPerMinute"}, "Workers"]}
    assert props("ExtractionFunction")["ReservedConcurrentExecutions"] == {
        "Fn::If": ["ReservesConcurrency", workers, NO_VALUE]
    }
    event = props("ExtractionFunction")["Events"]["ExtractionQueueEvent"]["Properties"]
    assert event["ScalingConfig"]["MaximumConcurrency"] == workers  # capped even without a reservation
    assert "floor(RPM" in (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")


def test_every_function_has_a_reserved_concurrency_parameter() -> None:
    for name in functions():
        reserved = props(name)["ReservedConcurrentExecutions"]
        assert reserved["Fn::If"][0] == "ReservesConcurrency" and reserved["Fn::If"][2] == NO_VALUE, name
        value = reserved["Fn::If"][1]
        if "Ref" in value:
            assert template()["Parameters"][value["Ref"]]["Type"] == "Number", name


# ------------------------------------------------------------------ alarms and dashboard


def emitted_metrics() -> set[str]:
    """Every metric name the code adds (metrics.add("Name", ...) or a constant it adds)."""
    names: set[str] = set()
    for path in SHARED.rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        names |= set(re.findall(r'\.add\(\s*"([A-Za-z0-9]+)"', text))
        for a, b in re.findall(r'\.add\(\s*"([A-Za-z0-9]+)" if [^"]+ else "([A-Za-z0-9]+)"', text):
            names |= {a, b}  # metrics.add("TaskRetries" if will_retry else "TasksFailed", 1)
        constants = dict(re.findall(r'^([A-Z_]+) = "([A-Za-z0-9]+)"', text, re.MULTILINE))
        names |= {constants[c] for c in re.findall(r"\.add\(\s*([A-Z_]+)\s*,", text) if c in constants}
    return names


def service_names() -> set[str]:
    return {f["Properties"]["Environment"]["Variables"]["POWERTOOLS_SERVICE_NAME"] for f in functions().values()}


def dashboard_metrics() -> list[list[Any]]:
    body = props("Dashboard")["DashboardBody"]["Fn::Sub"]
    widgets = json.loads(re.sub(r"\$\{[^}]+\}", "X", body))["widgets"]
    return [m for w in widgets for m in w["properties"].get("metrics", [])]


def test_alarms_and_dashboard_use_metrics_the_code_emits() -> None:
    emitted, services = emitted_metrics(), service_names()
    assert {"TasksFailed", "LLMCircuitOpen", "SearchLatency", "ExtractionDuration"} <= emitted
    used = [
        (a["Properties"]["MetricName"], {d["Name"]: d["Value"] for d in a["Properties"]["Dimensions"]})
        for a in resources("AWS::CloudWatch::Alarm").values()
        if a["Properties"]["Namespace"] == "Engram"
    ]
    for metric in dashboard_metrics():
        if metric[0] == "Engram":
            used.append((metric[1], dict(zip(metric[2:-1:2], metric[3::2], strict=False))))
    assert len(used) >= 15
    for name, dimensions in used:
        assert name in emitted, f"{name} is not a metric the code emits"
        assert set(dimensions) == {"service"} and dimensions["service"] in services, (name, dimensions)


def test_the_alarms_the_issue_asks_for_exist_and_notify_the_topic() -> None:
    alarms = resources("AWS::CloudWatch::Alarm")
    watched = {(a["Properties"]["Namespace"], a["Properties"]["MetricName"]) for a in alarms.values()}
    assert {
        ("AWS/SQS", "ApproximateNumberOfMessagesVisible"),  # DLQ depth
        ("AWS/SQS", "ApproximateAgeOfOldestMessage"),
        ("Engram", "TasksFailed"),  # extraction failures
        ("AWS/ApiGateway", "5XXError"),
        ("AWS/ApiGateway", "Latency"),
        ("Engram", "LLMCircuitOpen"),
        ("AWS/ES", "ClusterStatus.red"),
    } <= watched
    assert props("ApiLatencyAlarm")["ExtendedStatistic"] == "p99"
    topic = {"Fn::If": ["HasAlarmTopic", [{"Ref": "AlarmTopicArn"}], NO_VALUE]}
    for name, alarm in alarms.items():
        assert alarm["Properties"]["AlarmActions"] == topic and alarm["Properties"]["OKActions"] == topic, name
    operations = (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")
    for name in alarms:
        assert name in operations, f"docs/operations.md does not say what {name} means"


def test_the_dashboard_shows_adds_extraction_llm_search_and_the_queue() -> None:
    shown = {(m[0], m[1]) for m in dashboard_metrics()}
    for metric in ("TasksCompleted", "ExtractionDuration", "LLMCalls", "PromptTokens", "CompletionTokens"):
        assert ("Engram", metric) in shown
    assert ("Engram", "SearchLatency") in shown
    assert ("AWS/SQS", "ApproximateNumberOfMessagesVisible") in shown


# ------------------------------------------------------------------ deployments


def test_releases_shift_the_live_alias_and_roll_back_on_the_error_alarms() -> None:
    globals_ = template()["Globals"]["Function"]
    assert globals_["AutoPublishAlias"] == "live"
    preference = globals_["DeploymentPreference"]
    assert preference["Type"] == {"Ref": "DeploymentType"}
    rollback = {a["Ref"] for a in preference["Alarms"]}
    assert {f"{f.removesuffix('Function')}ErrorsAlarm" for f in functions()} | {"Api5xxAlarm"} == rollback
    cfn = translated()["Resources"]
    for name in functions():
        group = cfn[f"{name}DeploymentGroup"]["Properties"]
        assert {"Name": {"Ref": "Api5xxAlarm"}} in group["AlarmConfiguration"]["Alarms"]
        assert "DEPLOYMENT_STOP_ON_ALARM" in group["AutoRollbackConfiguration"]["Events"]
        assert cfn[f"{name}Aliaslive"]["Properties"]["Name"] == "live"


def test_the_queue_the_api_the_authorizer_and_the_state_machine_call_the_alias() -> None:
    cfn = translated()["Resources"]
    mapping = next(r for r in cfn.values() if r["Type"] == "AWS::Lambda::EventSourceMapping")
    assert mapping["Properties"]["FunctionName"] == {"Ref": "ExtractionFunctionAliaslive"}
    body = next(r for r in cfn.values() if r["Type"] == "AWS::ApiGateway::RestApi")["Properties"]["Body"]
    uri = body["paths"]["/v1/memories"]["post"]["x-amazon-apigateway-integration"]["uri"]
    assert "${ApiFunctionAliaslive}" in uri["Fn::Sub"]
    scheme = body["components"]["securitySchemes"]["ApiKeyAuthorizer"]["x-amazon-apigateway-authorizer"]
    assert scheme["authorizerUri"]["Fn::Sub"][1]["__FunctionArn__"] == {"Ref": "AuthorizerFunctionAliaslive"}
    assert "${WebSocketFunctionAliaslive}" in cfn["EventsIntegration"]["Properties"]["IntegrationUri"]["Fn::Sub"]
    machine = cfn["MaintenanceStateMachine"]["Properties"]["DefinitionSubstitutions"]
    assert machine["MaintenanceFunctionArn"] == {"Ref": "MaintenanceFunctionAliaslive"}


def test_the_local_stack_resolves_the_alias_to_its_function() -> None:
    local = load_template(TEMPLATE)
    assert {r.authorizer.function for r in local.api.routes if r.authorizer} == {"AuthorizerFunction"}
    assert [s.function for s in local.queue_sources] == ["ExtractionFunction"]
    from engram_tools.local.template import target

    assert target(local.state_machines["MaintenanceStateMachine"].substitutions["MaintenanceFunctionArn"]) == (
        "MaintenanceFunction"
    )
    assert local.queues["ExtractionQueue"].attributes["FifoQueue"] == "true"  # conditions left out, not mangled
    assert all("Fn::" not in v for q in local.queues.values() for v in q.attributes.values())


# ------------------------------------------------------------------ regulated users


def test_a_customer_managed_key_encrypts_tables_queues_bucket_logs_and_the_domain() -> None:
    key = {"Fn::If": ["HasKmsKey", {"Ref": "KmsKeyArn"}, NO_VALUE]}
    assert template()["Conditions"]["HasKmsKey"] == {"Fn::Not": [{"Fn::Equals": [{"Ref": "KmsKeyArn"}, ""]}]}
    for name in resources("AWS::DynamoDB::Table"):
        sse = props(name)["SSESpecification"]
        assert sse["SSEEnabled"] is True and sse["KMSMasterKeyId"] == key, name
        assert sse["SSEType"] == {"Fn::If": ["HasKmsKey", "KMS", NO_VALUE]}, name
    for name in resources("AWS::SQS::Queue"):
        assert props(name)["KmsMasterKeyId"] == key, name
        assert props(name)["SqsManagedSseEnabled"] == {"Fn::If": ["HasKmsKey", NO_VALUE, True]}, name  # never none
    [rule] = props("BlobBucket")["BucketEncryption"]["ServerSideEncryptionConfiguration"]
    assert rule["ServerSideEncryptionByDefault"]["SSEAlgorithm"] == {"Fn::If": ["HasKmsKey", "aws:kms", "AES256"]}
    assert rule["ServerSideEncryptionByDefault"]["KMSMasterKeyID"] == key
    assert props("SearchDomain")["EncryptionAtRestOptions"] == {"Enabled": True, "KmsKeyId": key}
    assert template()["Globals"]["Function"]["KmsKeyArn"] == key
    policy = props("KmsKeyUsePolicy")
    assert {r["Ref"] for r in policy["Roles"]} == {f"{f}Role" for f in functions()}


def test_a_web_acl_can_guard_the_api() -> None:
    association = resources()["WebAclAssociation"]
    assert association["Condition"] == "GuardsApi"
    assert association["Properties"]["WebACLArn"] == {
        "Fn::If": ["HasWebAcl", {"Ref": "WebAclArn"}, {"Fn::GetAtt": ["KeyRateWebAcl", "Arn"]}]
    }
    assert "/restapis/${EngramApi}/stages/" in association["Properties"]["ResourceArn"]["Fn::Sub"]


def test_each_key_gets_its_own_requests_a_minute_at_the_waf() -> None:
    acl = resources()["KeyRateWebAcl"]
    assert acl["Condition"] == "LimitsEachKey" and acl["Properties"]["Scope"] == "REGIONAL"
    [rule] = [r for r in acl["Properties"]["Rules"] if "RateBasedStatement" in r["Statement"]]
    rate = rule["Statement"]["RateBasedStatement"]
    assert rate["Limit"] == {"Ref": "KeyRequestsPerMinute"} and rate["EvaluationWindowSec"] == 60
    assert rate["AggregateKeyType"] == "CUSTOM_KEYS"
    assert [k["Header"]["Name"] for k in rate["CustomKeys"]] == ["x-api-key"]  # per key, not per IP
    assert rule["Action"]["Block"]["CustomResponse"]["ResponseCode"] == 429
    assert acl["Properties"]["VisibilityConfig"]["SampledRequestsEnabled"] is False  # samples hold the key
    logging = props("KeyRateWebAclLogging")
    assert logging["RedactedFields"] == [{"SingleHeader": {"Name": "x-api-key"}}]  # never the key in a log
    assert template()["Parameters"]["KeyRequestsPerMinute"]["Default"] == 0  # development: no WAF bill
    assert int(presets()["production"]["KeyRequestsPerMinute"]) >= 10  # WAF's smallest limit


@cache
def _docs() -> str:
    return (ROOT / "docs" / "operations.md").read_text(encoding="utf-8")


def test_operations_doc_covers_the_parameters_and_key_rotation() -> None:
    for name in template()["Parameters"]:
        assert f"`{name}`" in _docs(), f"docs/operations.md does not describe {name}"
    assert "label-parameter-version" in _docs() or "put-parameter --overwrite" in _docs()  # LLM key rotation
