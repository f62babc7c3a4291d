"""What the local stack needs from template.yaml, read once so that nothing is written twice.

The template is SAM; only the parts a local runtime needs are read: API routes and their authorizer,
functions (code dir, handler, timeout, memory, events), the SQS event source, queues, tables,
buckets, schedules and state machines. Intrinsics are resolved only as far as that needs
(`!Ref` to parameters and resources, `!GetAtt X.Arn`); everything else is left as parsed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml


class _CfnLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no type hints
    """SafeLoader that turns CloudFormation short tags (!Ref, !GetAtt, !Sub ...) into their long forms."""


def _cfn_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> dict[str, Any]:
    value: Any
    if isinstance(node, yaml.ScalarNode):
        value = loader.construct_scalar(node)
    elif isinstance(node, yaml.SequenceNode):
        value = loader.construct_sequence(node, deep=True)
    else:
        value = loader.construct_mapping(node, deep=True)
    if suffix in ("Ref", "Condition"):
        return {suffix: value}
    if suffix == "GetAtt" and isinstance(value, str):
        return {"Fn::GetAtt": value.split(".", 1)}
    return {f"Fn::{suffix}": value}


_CfnLoader.add_multi_constructor("!", _cfn_tag)


def load_yaml(path: Path) -> dict[str, Any]:
    loaded = yaml.load(path.read_text(encoding="utf-8"), Loader=_CfnLoader)  # noqa: S506 - SafeLoader subclass
    if not isinstance(loaded, dict):
        raise ValueError(f"{path} is not a CloudFormation template")
    return loaded


# SAM's references to what AutoPublishAlias makes of a function (`!Ref Fn.Alias`, `!Ref Fn.Version`):
# the local stack runs one version of each function, so they name the function itself.
_FUNCTION_REFERENCES = (".Alias", ".Version")


def target(value: Any) -> str | None:
    """The logical id a `!Ref X`, `!Ref Fn.Alias` or `!GetAtt X.attr` points at, else None."""
    if isinstance(value, dict):
        if isinstance(value.get("Ref"), str):
            ref = str(value["Ref"])
            for suffix in _FUNCTION_REFERENCES:
                ref = ref.removesuffix(suffix)
            return ref
        att = value.get("Fn::GetAtt")
        if isinstance(att, list) and att:
            return str(att[0])
    return None


@dataclass(frozen=True)
class Function:
    logical_id: str
    code_dir: Path
    handler: str  # "app.lambda_handler": module path inside code_dir, then the attribute
    timeout_s: int
    memory_mb: int
    environment: dict[str, str] = field(default_factory=dict)  # the function's own literal variables

    @property
    def module_file(self) -> Path:
        return self.code_dir / (self.handler.rsplit(".", 1)[0].replace(".", "/") + ".py")

    @property
    def attribute(self) -> str:
        return self.handler.rsplit(".", 1)[1]


@dataclass(frozen=True)
class Authorizer:
    name: str
    function: str
    payload_type: str  # REQUEST or TOKEN
    identity_headers: tuple[str, ...]
    ttl_s: int


@dataclass(frozen=True)
class Route:
    method: str  # upper case
    path: str  # with {params}, as API Gateway's `resource`
    function: str
    authorizer: Authorizer | None  # None: Auth NONE


@dataclass(frozen=True)
class GatewayResponse:
    """One of the API's GatewayResponses: its status (None: the type's own) and application/json template,
    `${Param}` references still in it (an `!Sub`), `$context.*` variables filled in per answer."""

    status: int | None
    template: str | None


@dataclass(frozen=True)
class Api:
    logical_id: str
    stage: str
    binary_media_types: tuple[str, ...]
    routes: tuple[Route, ...]
    throttle_rate: float = 10_000.0  # requests per second (API Gateway's account default)
    throttle_burst: int = 5_000
    # The preflight headers of the API's `Cors` (Allow-Methods, Allow-Headers, Max-Age); empty: no Cors
    cors_preflight: dict[str, str] = field(default_factory=dict)
    # Each key's own limit (the WAF web ACL's rate-based rule on the key header); 0: none
    key_requests_per_minute: int = 0
    # The API's `GatewayResponses` by type (UNAUTHORIZED, THROTTLED, DEFAULT_4XX, ...)
    gateway_responses: dict[str, GatewayResponse] = field(default_factory=dict)


@dataclass(frozen=True)
class QueueSource:
    function: str
    queue: str
    batch_size: int
    window_s: int
    report_failures: bool


@dataclass(frozen=True)
class Queue:
    logical_id: str
    fifo: bool
    attributes: dict[str, str]  # CreateQueue attributes except RedrivePolicy
    dead_letter_queue: str | None
    max_receive_count: int | None


@dataclass(frozen=True)
class Table:
    logical_id: str
    attribute_definitions: list[dict[str, str]]
    key_schema: list[dict[str, str]]
    global_secondary_indexes: list[dict[str, Any]]
    ttl_attribute: str | None


@dataclass(frozen=True)
class Bucket:
    logical_id: str
    versioned: bool


@dataclass(frozen=True)
class StateMachine:
    logical_id: str
    definition_file: Path
    substitutions: dict[str, Any]  # raw values, e.g. {"Fn::GetAtt": ["MaintenanceFunction", "Arn"]}


@dataclass(frozen=True)
class Schedule:
    name: str
    target: str  # logical id of a function or state machine
    expression: str  # rate(...) or cron(...)
    enabled: bool
    input: str | None


@dataclass(frozen=True)
class Template:
    root: Path
    parameters: dict[str, Any]
    api: Api
    functions: dict[str, Function]
    queue_sources: tuple[QueueSource, ...]
    queues: dict[str, Queue]
    tables: dict[str, Table]
    buckets: dict[str, Bucket]
    state_machines: dict[str, StateMachine]
    schedules: tuple[Schedule, ...]
    event_buses: tuple[str, ...] = ()  # logical ids of EventBridge buses (moto's locally)
    global_environment: dict[str, Any] = field(default_factory=dict)

    def resource_env(self) -> dict[str, str]:
        """Environment variables of Globals that `!Ref` a resource: variable -> logical id."""
        return {k: t for k, v in self.global_environment.items() if (t := target(v)) and t in self._logical_ids()}

    def _logical_ids(self) -> set[str]:
        return {*self.functions, *self.queues, *self.tables, *self.buckets, *self.state_machines, *self.event_buses}


def _resources(doc: dict[str, Any], kind: str, conditional: bool = False) -> dict[str, dict[str, Any]]:
    """The template's resources of one type; conditional ones (optional parts such as the example
    webhook, off by default) are left out locally unless asked for."""
    return {
        k: v
        for k, v in doc.get("Resources", {}).items()
        if v.get("Type") == kind and (conditional or "Condition" not in v)
    }


def _param_defaults(doc: dict[str, Any]) -> dict[str, Any]:
    return {name: spec.get("Default") for name, spec in doc.get("Parameters", {}).items()}


def _scalar(value: Any, params: dict[str, Any]) -> Any:
    """A literal, or the default of the parameter a `!Ref` names."""
    if isinstance(value, dict) and isinstance(value.get("Ref"), str) and value["Ref"] in params:
        return params[value["Ref"]]
    return value


def _functions(doc: dict[str, Any], root: Path) -> dict[str, Function]:
    defaults = doc.get("Globals", {}).get("Function", {})
    functions = {}
    for logical_id, res in _resources(doc, "AWS::Serverless::Function").items():
        own = res.get("Properties", {})
        props = {**defaults, **own}
        variables = (own.get("Environment") or {}).get("Variables") or {}
        functions[logical_id] = Function(
            logical_id=logical_id,
            code_dir=root / str(props.get("CodeUri", ".")),
            handler=str(props.get("Handler", "app.lambda_handler")),
            timeout_s=int(props.get("Timeout", 3)),
            memory_mb=int(props.get("MemorySize", 128)),
            environment={k: str(v) for k, v in variables.items() if isinstance(v, str | int | float)},
        )
    return functions


def _authorizers(api_props: dict[str, Any], params: dict[str, Any]) -> tuple[Authorizer | None, dict[str, Authorizer]]:
    auth = api_props.get("Auth", {})
    named: dict[str, Authorizer] = {}
    for name, spec in auth.get("Authorizers", {}).items():
        identity = spec.get("Identity", {})
        function = target(spec.get("FunctionArn"))
        if function is None:
            raise ValueError(f"authorizer {name}: FunctionArn must be !GetAtt <Function>.Arn")
        named[name] = Authorizer(
            name=name,
            function=function,
            payload_type=str(spec.get("FunctionPayloadType", "TOKEN")),
            identity_headers=tuple(h.lower() for h in identity.get("Headers", ["Authorization"])),
            ttl_s=int(_scalar(identity.get("ReauthorizeEvery", 300), params)),
        )
    default = auth.get("DefaultAuthorizer")
    return (named[default] if default else None), named


def _api(doc: dict[str, Any], params: dict[str, Any]) -> Api:
    apis = _resources(doc, "AWS::Serverless::Api")
    if len(apis) != 1:
        raise ValueError(f"the local stack serves exactly one AWS::Serverless::Api, found {len(apis)}")
    logical_id, res = next(iter(apis.items()))
    props = res.get("Properties", {})
    default, named = _authorizers(props, params)
    # Stage-wide throttling (the "/*" "*" method setting), served by the local front per API key.
    stage_wide: dict[str, Any] = next((m for m in props.get("MethodSettings", []) if m.get("ResourcePath") == "/*"), {})
    routes = []
    for function_id, fn in _resources(doc, "AWS::Serverless::Function").items():
        for event in fn.get("Properties", {}).get("Events", {}).values():
            if event.get("Type") != "Api":
                continue
            ev = event.get("Properties", {})
            if target(ev.get("RestApiId")) not in (None, logical_id):
                continue
            wanted = ev.get("Auth", {}).get("Authorizer")
            # AWS_IAM: API Gateway checks SigV4 on AWS; locally the function checks it (ENGRAM_AGENTCORE_KEYS)
            authorizer = None if wanted in ("NONE", "AWS_IAM") else named[wanted] if wanted else default
            method = str(ev["Method"]).upper()
            routes.append(Route("ANY" if method == "ANY" else method, str(ev["Path"]), function_id, authorizer))
    return Api(
        logical_id=logical_id,
        stage=str(_scalar(props.get("StageName", "dev"), params)),
        # "~1" is how API Gateway escapes "/" in binary media types.
        binary_media_types=tuple(str(t).replace("~1", "/") for t in props.get("BinaryMediaTypes", [])),
        routes=tuple(routes),
        throttle_rate=float(_scalar(stage_wide.get("ThrottlingRateLimit", 10_000), params)),
        throttle_burst=int(_scalar(stage_wide.get("ThrottlingBurstLimit", 5_000), params)),
        cors_preflight=_cors_preflight(props.get("Cors")),
        key_requests_per_minute=_key_rate(doc, default, params),
        gateway_responses=_gateway_responses(props.get("GatewayResponses")),
    )


def _key_rate(doc: dict[str, Any], authorizer: Authorizer | None, params: dict[str, Any]) -> int:
    """Requests a minute per key: a WAFv2 web ACL's rate-based rule aggregated on the authorizer's
    identity header (the key), scaled to a minute; 0 when there is none or its limit is 0."""
    if authorizer is None:
        return 0
    # The web ACL exists when its limit is set (a condition on that limit): a limit of 0 reads as none.
    for acl in _resources(doc, "AWS::WAFv2::WebACL", conditional=True).values():
        for rule in acl.get("Properties", {}).get("Rules", []):
            rate = (rule.get("Statement") or {}).get("RateBasedStatement") or {}
            headers = {str(k.get("Header", {}).get("Name", "")).lower() for k in rate.get("CustomKeys", [])}
            if rate and headers and headers <= set(authorizer.identity_headers):
                limit = int(_scalar(rate.get("Limit", 0), params) or 0)
                return limit * 60 // int(rate.get("EvaluationWindowSec", 300))
    return 0


def _gateway_responses(responses: Any) -> dict[str, GatewayResponse]:
    found = {}
    for kind, spec in (responses or {}).items():
        body = (spec.get("ResponseTemplates") or {}).get("application/json")
        if isinstance(body, dict):  # !Sub "...": the string, its ${Param}s filled in when answering
            body = body.get("Fn::Sub")
        status = spec.get("StatusCode")
        found[str(kind)] = GatewayResponse(int(status) if status is not None else None, body)
    return found


def _cors_preflight(cors: Any) -> dict[str, str]:
    """The literal preflight headers of `Cors` (its values are quoted, as API Gateway mappings are)."""
    if not isinstance(cors, dict):
        return {}
    names = {"AllowMethods": "Allow-Methods", "AllowHeaders": "Allow-Headers", "MaxAge": "Max-Age"}
    return {header: str(cors[key]).strip("'") for key, header in names.items() if isinstance(cors.get(key), str)}


def _queue_sources(doc: dict[str, Any]) -> tuple[QueueSource, ...]:
    sources = []
    for function_id, fn in _resources(doc, "AWS::Serverless::Function").items():
        for event in fn.get("Properties", {}).get("Events", {}).values():
            if event.get("Type") != "SQS":
                continue
            ev = event.get("Properties", {})
            queue = target(ev.get("Queue"))
            if queue is None:
                raise ValueError(f"{function_id}: the SQS event's Queue must be !GetAtt <Queue>.Arn")
            sources.append(
                QueueSource(
                    function=function_id,
                    queue=queue,
                    batch_size=int(ev.get("BatchSize", 10)),
                    window_s=int(ev.get("MaximumBatchingWindowInSeconds", 0)),
                    report_failures="ReportBatchItemFailures" in ev.get("FunctionResponseTypes", []),
                )
            )
    return tuple(sources)


_QUEUE_ATTRIBUTES = (
    "FifoQueue",
    "ContentBasedDeduplication",
    "DeduplicationScope",
    "FifoThroughputLimit",
    "VisibilityTimeout",
    "MessageRetentionPeriod",
    "DelaySeconds",
    "MaximumMessageSize",
    "ReceiveMessageWaitTimeSeconds",
    "SqsManagedSseEnabled",
)


def _queues(doc: dict[str, Any]) -> dict[str, Queue]:
    queues = {}
    for logical_id, res in _resources(doc, "AWS::SQS::Queue").items():
        props = res.get("Properties", {})
        # Literal attributes only: one set by a condition (the encryption: a KMS key or SQS-managed)
        # has no meaning for moto.
        attributes = {
            name: (str(props[name]).lower() if isinstance(props[name], bool) else str(props[name]))
            for name in _QUEUE_ATTRIBUTES
            if isinstance(props.get(name), str | int | float | bool)
        }
        redrive = props.get("RedrivePolicy") or {}
        max_receive = redrive.get("maxReceiveCount")
        queues[logical_id] = Queue(
            logical_id=logical_id,
            fifo=attributes.get("FifoQueue") == "true",
            attributes=attributes,
            dead_letter_queue=target(redrive.get("deadLetterTargetArn")),
            max_receive_count=int(max_receive) if max_receive is not None else None,
        )
    return queues


def _tables(doc: dict[str, Any]) -> dict[str, Table]:
    tables = {}
    for logical_id, res in _resources(doc, "AWS::DynamoDB::Table").items():
        props = res.get("Properties", {})
        ttl = props.get("TimeToLiveSpecification") or {}
        tables[logical_id] = Table(
            logical_id=logical_id,
            attribute_definitions=list(props["AttributeDefinitions"]),
            key_schema=list(props["KeySchema"]),
            global_secondary_indexes=list(props.get("GlobalSecondaryIndexes", [])),
            ttl_attribute=str(ttl["AttributeName"]) if ttl.get("Enabled") else None,
        )
    return tables


def _buckets(doc: dict[str, Any]) -> dict[str, Bucket]:
    return {
        logical_id: Bucket(
            logical_id,
            versioned=(res.get("Properties", {}).get("VersioningConfiguration") or {}).get("Status") == "Enabled",
        )
        for logical_id, res in _resources(doc, "AWS::S3::Bucket").items()
    }


def _state_machines(doc: dict[str, Any], root: Path) -> dict[str, StateMachine]:
    machines: dict[str, StateMachine] = {}
    for logical_id, res in _resources(doc, "AWS::Serverless::StateMachine").items():
        props = res.get("Properties", {})
        if "DefinitionUri" not in props:
            continue  # inline definitions are not used by this project
        machines[logical_id] = StateMachine(
            logical_id, root / str(props["DefinitionUri"]), dict(props.get("DefinitionSubstitutions", {}))
        )
    return machines


def _schedules(doc: dict[str, Any]) -> tuple[Schedule, ...]:
    schedules = []
    kinds = ("AWS::Serverless::Function", "AWS::Serverless::StateMachine")
    for logical_id, res in doc.get("Resources", {}).items():
        if res.get("Type") not in kinds:
            continue
        for name, event in res.get("Properties", {}).get("Events", {}).items():
            if event.get("Type") not in ("Schedule", "ScheduleV2"):
                continue
            ev = event.get("Properties", {})
            expression = ev.get("Schedule") or ev.get("ScheduleExpression")
            enabled = ev.get("Enabled", ev.get("State", "ENABLED") == "ENABLED")
            schedule = Schedule(f"{logical_id}.{name}", logical_id, str(expression), bool(enabled), ev.get("Input"))
            schedules.append(schedule)
    return tuple(schedules)


def load_template(path: Path) -> Template:
    doc = load_yaml(path)
    root = path.resolve().parent
    params = _param_defaults(doc)
    return Template(
        root=root,
        parameters=params,
        api=_api(doc, params),
        functions=_functions(doc, root),
        queue_sources=_queue_sources(doc),
        queues=_queues(doc),
        tables=_tables(doc),
        buckets=_buckets(doc),
        state_machines=_state_machines(doc, root),
        schedules=_schedules(doc),
        event_buses=tuple(_resources(doc, "AWS::Events::EventBus")),
        global_environment=dict(doc.get("Globals", {}).get("Function", {}).get("Environment", {}).get("Variables", {})),
    )
