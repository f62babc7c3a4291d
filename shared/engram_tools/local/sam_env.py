"""`.engram/env.json`: the running local stack as `sam local invoke --env-vars` needs it.

SAM's file maps a function's logical id (or "Parameters", for every function) to variable values,
and SAM applies only values of variables the template declares for that function. So each function
gets a value for every variable it declares: what the local stack's own functions see (resource
names, endpoint, embedded index, local embedder, and the settings' defaults where the stack sets
nothing), not what CloudFormation would resolve on AWS.

Inside a container 127.0.0.1 is the container itself: moto's endpoint is written with a host the
container can reach (ENGRAM_LOCAL_DOCKER_HOST, default host.docker.internal), and the data folder
is the container's scratch /tmp (the template's default), since the host's folder is not mounted.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from engram_tools.local.provision import Provisioned
from engram_tools.local.template import load_yaml, target

ENV_FILE = "env.json"
DOCKER_HOST_VARIABLE = "ENGRAM_LOCAL_DOCKER_HOST"
DEFAULT_DOCKER_HOST = "host.docker.internal"
CONTAINER_DATA_DIR = "/tmp/engram"  # noqa: S108 - Lambda's only writable folder, one per container
_PLACED = {"ENGRAM_DATA_DIR": CONTAINER_DATA_DIR}


def docker_host() -> str:
    return os.environ.get(DOCKER_HOST_VARIABLE, "").strip() or DEFAULT_DOCKER_HOST


def _setting_default(variable: str) -> str | None:
    """The settings model's default for an ENGRAM_* variable ("" for none), else None."""
    from engram.settings import ENV_PREFIX, Settings

    if not variable.startswith(ENV_PREFIX):
        return None
    field = Settings.model_fields.get(variable.removeprefix(ENV_PREFIX).lower())
    if field is None:
        return None
    default = field.get_default(call_default_factory=True)
    return "" if default is None else str(default)


def _value(variable: str, raw: Any, env: Mapping[str, str], provisioned: Provisioned, params: dict[str, Any]) -> str:
    if variable in _PLACED:
        return _PLACED[variable]
    if variable in env:
        return env[variable]
    logical = target(raw)
    if logical is not None:
        try:
            return provisioned.ref(logical)
        except KeyError:
            pass  # not provisioned locally (a state machine, the WebSocket API): as the stack, unset
    default = _setting_default(variable)
    if default is not None:
        return default  # the local stack's functions run on the settings' defaults
    if isinstance(raw, dict) and raw.get("Ref") in params:
        return str(params[raw["Ref"]] or "")
    if isinstance(raw, str | int | float):
        return str(raw)
    return ""


def function_variables(
    template_path: Path, env: Mapping[str, str], provisioned: Provisioned
) -> dict[str, dict[str, str]]:
    """Every function's declared variables (Globals and its own) with the local stack's values."""
    doc = load_yaml(template_path)
    params = {name: spec.get("Default") for name, spec in doc.get("Parameters", {}).items()}
    global_vars: dict[str, Any] = (
        doc.get("Globals", {}).get("Function", {}).get("Environment", {}).get("Variables", {}) or {}
    )
    out: dict[str, dict[str, str]] = {}
    for logical_id, res in doc.get("Resources", {}).items():
        if res.get("Type") != "AWS::Serverless::Function":
            continue
        own = (res.get("Properties", {}).get("Environment") or {}).get("Variables") or {}
        declared = {**global_vars, **own}
        values = {k: _value(k, v, env, provisioned, params) for k, v in declared.items()}
        # The function's own literals (its service name, ENGRAM_MAX_RECEIVES) are what it imports with.
        values.update({k: str(v) for k, v in own.items() if isinstance(v, str | int | float)})
        out[logical_id] = values
    return out


def for_containers(variables: dict[str, dict[str, str]], endpoint: str, host: str) -> dict[str, Any]:
    """The env.json document: moto's host replaced by one a container reaches; shared values also
    under "Parameters". `endpoint` is moto's URL as the stack uses it (http://127.0.0.1:port)."""
    scheme, _, rest = endpoint.partition("://")
    port = rest.rsplit(":", 1)[1] if ":" in rest else ""
    reachable = f"{scheme}://{host}:{port}" if port else f"{scheme}://{host}"

    def place(values: dict[str, str]) -> dict[str, str]:
        return {k: v.replace(endpoint, reachable) for k, v in values.items()}

    functions = {name: place(values) for name, values in variables.items()}
    shared = set.intersection(*(set(v.items()) for v in functions.values())) if functions else set()
    return {"Parameters": dict(sorted(shared)), **functions}


def write_env_file(
    data_dir: Path, template_path: Path, env: Mapping[str, str], provisioned: Provisioned, endpoint: str
) -> Path:
    document = for_containers(function_variables(template_path, env, provisioned), endpoint, docker_host())
    path = data_dir / ENV_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)  # never a half-written file for a `sam local invoke` reading it meanwhile
    return path
