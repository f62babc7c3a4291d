"""Drives each operation through the real Lambda handlers on moto, with the real OpenSearch adapter on a
simulated cluster, and counts the AWS requests each one sends: the table bench/parts/cost.py prices.

The container is the production wiring (offline extractor and reconciler, episodes and graph on, the
OpenSearch index) except two timers: search counts and search hits ("uses") are buffered and written
every usage_flush_s / touch_interval_s per container, by a thread that moto in process cannot share;
their writes are measured as rows of their own (`search_usage_flush`, `search_touch_flush`).
Every operation is measured after one like it (warm container caches: the user's speakers, key
lookups), as a warm Lambda container serves most requests.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import boto3
import pytest
from moto import mock_aws
from opensearchpy import OpenSearch

import engram.bootstrap
from engram.adapters.opensearch.index import OpenSearchIndex
from engram.bootstrap import Container
from engram.domain.models import AddRequest, Message, Scope
from tests.fakes import HashEmbedder
from tests.integration.aws_tables import create_bucket, create_fifo_queue, create_tables
from tests.integration.opensearch_sim import SimIndex, SimulatedConnection
from tests.integration.request_recorder import Recorder
from tests.integration.stack import api_caller
from tests.support.handlers import FakeContext, load_function

DELETE_ALL_MEMORIES = 100  # moto's transactions slow down with the table; the cost model scales to 1,000
MAINTENANCE_MEMORIES = 20
BACKLOG_BATCH = 10  # the extraction function's SQS batch size (template.yaml)
LIVE_TEXTS = [
    "I live in Berlin and I work as a nurse.",
    "My sister Anna lives in Munich.",
    "I moved to Hamburg last month.",
]


class Bench:
    """One tenant's stack: handlers, a recorder on the bootstrap's clients, and the queue the poller reads."""

    def __init__(self, container: Container, sim: SimIndex, sqs: Any) -> None:
        self.container, self.sim, self.sqs = container, sim, sqs
        self.recorder = Recorder(sim)
        for name in ("dynamodb", "sqs", "s3", "stepfunctions"):
            self.recorder.attach(getattr(container.aws, name))
        self.call = api_caller(load_function("api"))
        self.extraction = load_function("extraction").lambda_handler
        self.maintenance = load_function("maintenance").lambda_handler
        self.invocations: dict[str, int] = {}

    def api(self, method: str, path: str, body: Any = None, **kw: Any) -> Any:
        self.invocations["api"] = self.invocations.get("api", 0) + 1
        status, answer = self.call(method, path, body, **kw)
        assert status < 300, (method, path, status, answer)
        return answer

    def drain(self, batch: int = BACKLOG_BATCH) -> None:
        """Deliver what is queued to the extraction handler, `batch` messages an invocation, as the
        event source mapping does (its own receives and deletes are not Engram's requests: the cost
        model adds them per invocation)."""
        while True:
            got = self.sqs.receive_message(
                QueueUrl=self.container.settings.queue_url, MaxNumberOfMessages=batch, AttributeNames=["All"]
            ).get("Messages", [])
            if not got:
                return
            records = [
                {
                    "messageId": m["MessageId"],
                    "receiptHandle": m["ReceiptHandle"],
                    "body": m["Body"],
                    "attributes": m["Attributes"],
                    "messageAttributes": {},
                    "md5OfBody": "",
                    "eventSource": "aws:sqs",
                    "awsRegion": "us-east-1",
                }
                for m in got
            ]
            self.invocations["extraction"] = self.invocations.get("extraction", 0) + 1
            assert self.extraction({"Records": records}, FakeContext()) == {"batchItemFailures": []}
            for m in got:
                self.sqs.delete_message(QueueUrl=self.container.settings.queue_url, ReceiptHandle=m["ReceiptHandle"])

    def add(self, user: str, text: str, infer: bool) -> None:
        body = {"user_id": user, "messages": [{"role": "user", "content": text}], "infer": infer}
        self.api("POST", "/v1/memories", body)

    def seed(self, user: str, count: int) -> None:
        """Memories stored as given, straight through the pipeline (not measured)."""
        for start in range(0, count, 100):
            texts = [f"Fact number {n} about {user}: likes item {n}" for n in range(start, min(count, start + 100))]
            request = AddRequest(
                messages=[Message(role="user", content=t) for t in texts], user_id=user, infer=False, deduplicate=False
            )
            self.container.pipeline.run(Scope(tenant_id="acme", user_id=user), request, f"seed-{user}-{start}")

    def measured(self, operations: int, action: Callable[[], None]) -> dict[str, Any]:
        """What `action` sent, as the total of `operations` operations."""
        self.invocations = {}
        with self.recorder.measure() as sent:
            action()
        return {"operations": operations, "invocations": dict(sorted(self.invocations.items())), "requests": sent}


@contextmanager
def accounting_stack(monkeypatch: pytest.MonkeyPatch, **settings_changes: Any) -> Iterator[Bench]:
    with mock_aws():
        dynamodb = boto3.client("dynamodb", region_name="us-east-1")
        sqs = boto3.client("sqs", region_name="us-east-1")
        settings = create_tables(dynamodb)
        create_bucket(boto3.client("s3", region_name="us-east-1"), settings.bucket)
        quiet = {"usage_flush_s": 3600.0, "touch_interval_s": 3600.0}
        settings = settings.model_copy(update={"queue_url": create_fifo_queue(sqs), **quiet, **settings_changes})
        sim = SimIndex()

        def opensearch(name: str) -> OpenSearchIndex:
            client = OpenSearch(hosts=[{"host": "sim", "port": 9200}], connection_class=SimulatedConnection, sim=sim)
            index = OpenSearchIndex(client, name, HashEmbedder.dimensions)
            index.ensure_index()
            return index

        container = Container(
            settings,
            index=opensearch(settings.opensearch_index),
            entity_index=opensearch(settings.opensearch_entity_index),
            embedder=HashEmbedder(),
            llm=None,  # the offline extractor and reconciler: the LLM's own cost is priced by tokens
        )
        monkeypatch.setattr(engram.bootstrap, "container", lambda: container)
        try:
            yield Bench(container, sim, sqs)
        finally:
            container.close()


def measure_all(bench: Bench) -> dict[str, Any]:
    """Every operation of the table, each after a warm-up like it."""
    ops: dict[str, Any] = {}
    bench.add("warm", "I live in Paris and I love jazz.", infer=True)
    bench.drain()

    def add(user: str, text: str, infer: bool) -> Callable[[], None]:
        return lambda: (bench.add(user, text, infer), bench.drain())  # type: ignore[func-returns-value]

    ops["add_raw"] = bench.measured(1, add("alice", "Thanks, see you tomorrow at the station!", False))
    bench.add("alice", LIVE_TEXTS[0], True)
    bench.drain()
    ops["add_live"] = bench.measured(1, add("alice", LIVE_TEXTS[1], True))
    ops["add_live_update"] = bench.measured(1, add("alice", LIVE_TEXTS[2], True))

    def backlog() -> None:
        for n in range(BACKLOG_BATCH):
            bench.add("bob", f"I bought a red bicycle number {n} and I ride it to work.", True)
        bench.drain()

    ops["add_backlog"] = bench.measured(BACKLOG_BATCH, backlog)

    search = {"user_id": "alice", "query": "where does she live?"}
    bench.api("POST", "/v1/memories/search", search)
    ops["search"] = bench.measured(1, lambda: bench.api("POST", "/v1/memories/search", search))
    ops["search_usage_flush"] = bench.measured(1, bench.container.search_usage.flush)
    touches = bench.container.memories.touches
    assert touches is not None
    ops["search_touch_flush"] = bench.measured(1, lambda: touches.flush() and None)  # type: ignore[func-returns-value]

    listing = {"user_id": "alice"}
    bench.api("GET", "/v1/memories", query=listing)
    ops["list"] = bench.measured(1, lambda: bench.api("GET", "/v1/memories", query=listing))
    memory_id = bench.api("GET", "/v1/memories", query=listing)["results"][0]["id"]
    ops["get"] = bench.measured(1, lambda: bench.api("GET", f"/v1/memories/{memory_id}"))
    ops["graph_read"] = bench.measured(1, lambda: bench.api("GET", "/v1/graph", query={"user_id": "alice"}))

    bench.seed("carol", MAINTENANCE_MEMORIES)
    scope = {"tenant_id": "acme", "user_id": "carol"}
    ops["maintenance_list_scopes"] = bench.measured(
        1, lambda: bench.maintenance({"action": "list_scopes", "scope": scope}, FakeContext()) and None
    )

    def maintain() -> None:
        for action in ("repair", "expire", "dedupe", "summarise", "prune"):
            bench.invocations["maintenance"] = bench.invocations.get("maintenance", 0) + 1
            bench.maintenance({"action": action, "execution_id": "x", **scope}, FakeContext())

    ops["maintenance_per_user"] = bench.measured(1, maintain)

    bench.seed("dave", DELETE_ALL_MEMORIES)

    def delete_all() -> None:
        bench.api("DELETE", "/v1/memories", query={"user_id": "dave"})
        bench.drain()

    ops["delete_all"] = bench.measured(DELETE_ALL_MEMORIES, delete_all)  # operations: memories deleted
    assert bench.api("GET", "/v1/memories", query={"user_id": "dave"})["results"] == []
    return ops


def table_json(ops: dict[str, Any]) -> str:
    return json.dumps({"operations": ops}, indent=1, sort_keys=True) + "\n"
