"""env.json for `sam local invoke`: the values the local stack's functions run on, reachable from a container."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram_tools.local.provision import Provisioned
from engram_tools.local.sam_env import write_env_file

ROOT = Path(__file__).resolve().parents[3]
MOTO = "http://127.0.0.1:5123"


def provisioned() -> Provisioned:
    return Provisioned(
        tables={t: f"engram-local-{t}" for t in ("MemoryTable", "TasksTable", "ApiKeysTable", "IdempotencyTable",
                                                "ConnectionsTable")},
        buckets={"BlobBucket": "engram-local-BlobBucket"},
        queue_urls={"ExtractionQueue": f"{MOTO}/123456789012/engram-local-ExtractionQueue.fifo"},
    )  # fmt: skip


def written(tmp_path: Path, env: dict[str, str]) -> dict[str, dict[str, str]]:
    path = write_env_file(tmp_path, ROOT / "template.yaml", env, provisioned(), MOTO)
    assert path == tmp_path / "env.json"
    document: dict[str, dict[str, str]] = json.loads(path.read_text(encoding="utf-8"))
    return document


def test_values_are_the_local_stacks_not_cloudformations(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("ENGRAM_LOCAL_DOCKER_HOST", raising=False)
    env = {"ENGRAM_AWS_ENDPOINT_URL": MOTO, "ENGRAM_INDEX_BACKEND": "embedded", "ENGRAM_EMBEDDER": "local",
           "ENGRAM_DATA_DIR": str(tmp_path), "POWERTOOLS_SERVICE_NAME": "engram-local"}  # fmt: skip
    doc = written(tmp_path, env)
    api, extraction = doc["ApiFunction"], doc["ExtractionFunction"]
    assert api["ENGRAM_AWS_ENDPOINT_URL"] == "http://host.docker.internal:5123"
    assert api["ENGRAM_QUEUE_URL"] == "http://host.docker.internal:5123/123456789012/engram-local-ExtractionQueue.fifo"
    assert api["ENGRAM_DATA_DIR"] == "/tmp/engram"  # the container's scratch, not the host's folder
    assert api["ENGRAM_CONNECTIONS_TABLE"] == "engram-local-ConnectionsTable"  # a function's own !Ref
    # The settings' default (the local model's 384), not the template's parameter (1536 for OpenAI).
    assert api["ENGRAM_EMBEDDING_DIMS"] == "384"
    assert api["ENGRAM_METRICS"] == "off" and api["ENGRAM_OPENAI_API_KEY_PARAM"] == ""
    assert api["ENGRAM_MAINTENANCE_STATE_MACHINE_ARN"] == ""  # no Step Functions locally
    assert api["LOG_LEVEL"] == "INFO"  # a parameter's default
    # A function's own literal over the stack's process-wide value.
    assert api["POWERTOOLS_SERVICE_NAME"] == "engram-api"
    assert extraction["POWERTOOLS_SERVICE_NAME"] == "engram-extraction"
    assert extraction["ENGRAM_MAX_RECEIVES"] == "3"
    assert doc["Parameters"]["ENGRAM_MEMORY_TABLE"] == "engram-local-MemoryTable"
    assert "POWERTOOLS_SERVICE_NAME" not in doc["Parameters"]  # differs per function


def test_docker_host_is_configurable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_LOCAL_DOCKER_HOST", "172.17.0.1")
    doc = written(tmp_path, {"ENGRAM_AWS_ENDPOINT_URL": MOTO})
    assert doc["AuthorizerFunction"]["ENGRAM_AWS_ENDPOINT_URL"] == "http://172.17.0.1:5123"
