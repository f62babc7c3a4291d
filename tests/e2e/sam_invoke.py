"""Invoke a function of template.yaml as `sam local invoke <Fn> -e <event> --env-vars .engram/env.json`
would against a running `make run`, without Docker: a fresh process per invoke (lambda_invoke.py),
the function's CodeUri and Handler, the variables of env.json, and the variables SAM itself sets.

Two things differ from a container, and only those: moto's host (a container reaches it as
host.docker.internal; this process as 127.0.0.1), and the container's own /tmp (a fresh folder here).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from engram_tools.local.names import physical_name
from engram_tools.local.sam_env import CONTAINER_DATA_DIR, DEFAULT_DOCKER_HOST
from engram_tools.local.template import load_template

ROOT = Path(__file__).resolve().parents[2]
EVENTS = ROOT / "events"
RUNNER = Path(__file__).with_name("lambda_invoke.py")
REGION = "us-east-1"  # `sam local invoke --region`: the local stack's region


def event(name: str) -> Any:
    return json.loads((EVENTS / name).read_text(encoding="utf-8"))


def function_environment(env_file: Path, function: str, scratch: Path) -> dict[str, str]:
    """The function's variables from env.json (its own over "Parameters"), placed on this machine."""
    document = json.loads(env_file.read_text(encoding="utf-8"))
    values = {**document.get("Parameters", {}), **document[function]}
    placed = {}
    for name, value in values.items():
        value = value.replace(f"://{DEFAULT_DOCKER_HOST}:", "://127.0.0.1:")
        placed[name] = str(scratch) if value == CONTAINER_DATA_DIR else value
    return placed


def invoke(env_file: Path, function: str, payload: Any, scratch: Path, **overrides: str) -> Any:
    """The function's response to `payload` (Lambda's error shape if it raised)."""
    spec = load_template(ROOT / "template.yaml").functions[function]
    scratch.mkdir(parents=True, exist_ok=True)
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": os.environ.get("HOME", str(scratch)),  # the ONNX model's derived copy is cached there
        # What SAM sets in every container (samcli/local/lambdafn/env_vars.py), fake credentials included.
        "AWS_SAM_LOCAL": "true",
        "AWS_LAMBDA_FUNCTION_NAME": physical_name(function),
        "AWS_LAMBDA_FUNCTION_MEMORY_SIZE": str(spec.memory_mb),
        "AWS_LAMBDA_FUNCTION_TIMEOUT": str(spec.timeout_s),
        "AWS_LAMBDA_FUNCTION_HANDLER": spec.handler,
        "AWS_REGION": REGION,
        "AWS_DEFAULT_REGION": REGION,
        "AWS_ACCESS_KEY_ID": "defaultkey",
        "AWS_SECRET_ACCESS_KEY": "defaultsecret",
        **function_environment(env_file, function, scratch),
        **overrides,
    }
    result = scratch / "result.json"
    done = subprocess.run(
        [sys.executable, str(RUNNER), str(spec.code_dir), spec.handler, str(result)],
        input=json.dumps(payload),
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    if not result.exists():
        raise AssertionError(f"{function} did not answer (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return json.loads(result.read_text(encoding="utf-8"))
