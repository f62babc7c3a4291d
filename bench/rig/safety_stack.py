"""The product offline in this process, for the safety parts: the bootstrap Container with its real DynamoDB,
S3 and SQS adapters on moto (in process, as tests/integration build it), the local MiniLM embedder, the
embedded index, no LLM (the offline extractor and reconciler, as `make run` without one), and the API
function itself: an add is POST /v1/memories through functions/api/app.py, then the worker's processing of
its task, as the extraction function does."""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import boto3
from moto import mock_aws

import engram.bootstrap
from bench.rig.engram_env import clear_product_settings
from bench.rig.procs import FAKE_AWS
from engram.adapters.embedded.index import EmbeddedIndex
from engram.bootstrap import Container
from tests.integration.aws_tables import create_bucket, create_fifo_queue, create_tables
from tests.integration.stack import api_caller
from tests.support.handlers import load_function

TENANT = "bench"


@dataclass
class Product:
    container: Container
    call: Any  # call(method, path, body=None, query=None, tenant=...) -> (status, JSON body)

    def add(self, user_id: str, text: str) -> dict[str, Any]:
        """One user message added and processed; the finished task."""
        status, body = self.call(
            "POST", "/v1/memories", {"user_id": user_id, "messages": [{"role": "user", "content": text}]}, tenant=TENANT
        )
        if status != 202:
            raise RuntimeError(f"POST /v1/memories answered {status}: {body}")
        self.container.worker.process(TENANT, body["task_id"])
        status, task = self.call("GET", f"/v1/tasks/{body['task_id']}", tenant=TENANT)
        if status != 200 or task["status"] != "completed":
            raise RuntimeError(f"the add of {text!r} did not complete: {task}")
        return dict(task)

    def memories(self, user_id: str) -> list[dict[str, Any]]:
        """The user's current memories, as GET /v1/memories lists them (every page)."""
        out: list[dict[str, Any]] = []
        query: dict[str, str] = {"user_id": user_id, "limit": "100"}
        while True:
            status, page = self.call("GET", "/v1/memories", query=query, tenant=TENANT)
            if status != 200:
                raise RuntimeError(f"GET /v1/memories answered {status}: {page}")
            out += page["results"]
            if not page.get("next_cursor"):
                return out
            query = {**query, "cursor": page["next_cursor"]}

    def config(self, user_id: str | None = None) -> dict[str, Any]:
        status, body = self.call("GET", "/v1/config", query={"user_id": user_id} if user_id else None, tenant=TENANT)
        if status != 200:
            raise RuntimeError(f"GET /v1/config answered {status}: {body}")
        return dict(body)

    def put_config(self, config: dict[str, Any]) -> None:
        status, body = self.call("PUT", "/v1/config", config, tenant=TENANT)
        if status != 200:
            raise RuntimeError(f"PUT /v1/config answered {status}: {body}")


@contextmanager
def offline_product() -> Iterator[Product]:
    os.environ.update(FAKE_AWS)
    os.environ.setdefault("AWS_DEFAULT_REGION", "us-east-1")
    clear_product_settings()  # no ENGRAM_* of the shell: the default, offline product
    previous = engram.bootstrap.container
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        settings = create_tables(dynamodb)
        create_bucket(boto3.client("s3", region_name="us-east-1"), settings.bucket)
        queue_url = create_fifo_queue(boto3.client("sqs", region_name="us-east-1"))
        # Counters written when read, not by a timer thread in the middle of an add: moto in process is
        # not thread-safe.
        settings = settings.model_copy(
            update={"queue_url": queue_url, "usage_flush_s": 3600.0, "touch_interval_s": 3600.0}
        )
        container = Container(settings, index=EmbeddedIndex(None, 384), entity_index=EmbeddedIndex(None, 384))
        if container.llm is not None:
            raise RuntimeError("the safety parts run the offline product: unset the ENGRAM_OPENAI_* settings")
        engram.bootstrap.container = lambda: container  # type: ignore[assignment]  # what the API function reads
        try:
            yield Product(container, api_caller(load_function("api")))
        finally:
            engram.bootstrap.container = previous  # type: ignore[method-assign]
            container.close()
