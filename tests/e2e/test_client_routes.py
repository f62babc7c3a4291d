"""Every operation /openapi.json lists has a method in the Python SDK, sync and async (engram_client's ROUTES),
and the methods for the graph, operations and users routes work against the local stack."""

from __future__ import annotations

import asyncio
import inspect
import time
import uuid
from datetime import UTC, datetime

import httpx
import pytest

from engram_client import AsyncEngram, Engram, NotFoundError
from engram_client._calls import ROUTES
from engram_client.models import MaintenanceRun
from tests.e2e.conftest import ACME_KEY, GLOBEX_KEY
from tests.e2e.stack_process import StackProcess

pytestmark = pytest.mark.e2e
METHODS = {"get", "put", "post", "patch", "delete"}


def test_every_operation_of_the_live_spec_has_a_client_method_sync_and_async(stack: StackProcess) -> None:
    spec = httpx.get(f"{stack.url}/openapi.json", timeout=30).json()
    listed = {(m.upper(), path) for path, item in spec["paths"].items() for m in item if m in METHODS}
    assert listed - ROUTES.keys() == set(), "routes without a client method: add them to the SDK and ROUTES"
    assert ROUTES.keys() - listed == set(), "ROUTES names routes the API no longer has"
    for name in ROUTES.values():
        assert callable(getattr(Engram, name, None)), f"Engram.{name}"
        assert inspect.iscoroutinefunction(getattr(AsyncEngram, name, None)), f"AsyncEngram.{name}"


def test_health_users_usage_and_queue_metrics(stack: StackProcess) -> None:
    user = f"ops-{uuid.uuid4().hex[:8]}"
    with Engram(stack.url, ACME_KEY) as client, Engram(stack.url, GLOBEX_KEY) as globex:
        assert client.health().status == "ok"
        deep = client.health(deep=True)
        assert deep.status == "ok" and deep.down == [] and deep.checks is not None
        assert {"dynamodb", "sqs", "search_index", "embedder"} <= set(deep.checks)
        assert client.openapi()["info"]["title"] == "Engram"

        today = datetime.now(UTC).date()
        before = client.usage(today, today).totals.adds
        client.add("I live in Lisbon", user_id=user)
        usage = client.usage(today, today)
        assert usage.from_ == today.isoformat() and [d.date for d in usage.days] == [today.isoformat()]
        assert usage.totals.adds == before + 1

        assert user in {u.user_id for u in client.users(page_size=2)}  # follows the cursors
        assert user not in {u.user_id for u in globex.users()}
        assert client.queue_metrics("day").completed >= 1


def test_graph_entity_and_delete_relation(stack: StackProcess) -> None:
    user = f"graph-{uuid.uuid4().hex[:8]}"
    with Engram(stack.url, ACME_KEY) as client, Engram(stack.url, GLOBEX_KEY) as globex:
        client.add("My sister Maren lives in Oslo.", user_id=user)
        graph = client.graph(user)
        maren = next(e for e in graph.entities if e.name == "Maren")
        entity = client.entity(maren.id)
        lives = next(r for r in entity.relations if r.relation == "lives_in")
        assert (lives.source, lives.destination, lives.valid_to) == ("Maren", "Oslo", None)
        with pytest.raises(NotFoundError):
            globex.entity(maren.id)

        closed = client.delete_relation(lives.id)
        assert closed.id == lives.id and closed.valid_to is not None
        assert lives.id not in {r.id for r in client.graph(user).relations}


def test_a_maintenance_run_started_and_followed_through_the_async_client(stack: StackProcess) -> None:
    user = f"maint-{uuid.uuid4().hex[:8]}"

    async def run() -> MaintenanceRun:
        async with AsyncEngram(stack.url, ACME_KEY) as client:
            for _ in range(2):
                await client.add("Dan plays the cello", user_id=user, infer=False, deduplicate=False)
            started = await client.start_maintenance(["dedupe"], user_id=user)
            deadline = time.monotonic() + 60
            while not (found := await client.maintenance_run(started.execution_id)).done:
                assert time.monotonic() < deadline, found
                await asyncio.sleep(0.2)
            assert [m.memory async for m in client.list(user)] == ["Dan plays the cello"]
            return found

    finished = asyncio.run(run())
    assert finished.status == "SUCCEEDED" and finished.actions == ["dedupe"] and finished.user_id == user
