"""The local front serves concurrently, as API Gateway with several Lambda instances does: a request
that is still running never holds up another, and each concurrent call has its own handler instance."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest

from engram_tools.local.api_gateway import ApiGateway
from engram_tools.local.http_front import HttpFront
from engram_tools.local.lambda_runtime import LocalFunction
from engram_tools.local.template import Api, Function, Route

pytestmark = pytest.mark.e2e

# A handler whose /slow route runs until the test creates the `release` file (or 30 s pass): the
# test decides when the long operation ends, so nothing here depends on the machine's speed.
HANDLER = """
import json, time
from pathlib import Path

RELEASE = Path(__file__).with_name("release")
calls = []  # module-level state, as Powertools' resolver keeps the current event

def lambda_handler(event, context):
    calls.append(event["path"])
    if event["path"] == "/slow":
        deadline = time.monotonic() + 30
        while not RELEASE.exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    body = {"path": event["path"], "instance": __name__, "calls": list(calls)}
    return {"statusCode": 200, "body": json.dumps(body)}
"""


@pytest.fixture
def front(tmp_path: Path) -> Iterator[tuple[str, Path, LocalFunction]]:
    (tmp_path / "app.py").write_text(HANDLER)
    spec = Function("Fn", tmp_path, "app.lambda_handler", timeout_s=60, memory_mb=128)
    function = LocalFunction(spec, "us-east-1", max_instances=2)
    routes = tuple(Route("GET", path, "Fn", None) for path in ("/slow", "/fast"))
    api = Api("Api", "Prod", (), routes)
    server = HttpFront("127.0.0.1", 0)
    server.start(ApiGateway(api, {"Fn": function}, "us-east-1"))
    try:
        yield server.url, tmp_path / "release", function
    finally:
        (tmp_path / "release").touch()  # never leave a handler thread waiting
        server.stop()


def test_a_get_answers_while_a_long_request_is_still_running(front: tuple[str, Path, LocalFunction]) -> None:
    url, release, function = front
    slow: dict[str, httpx.Response] = {}
    started = threading.Thread(target=lambda: slow.update(r=httpx.get(f"{url}/slow", timeout=60)))
    started.start()
    while function.instances == 0:  # the slow call has taken the first instance
        threading.Event().wait(0.01)

    fast = httpx.get(f"{url}/fast", timeout=10)

    assert fast.status_code == 200 and fast.json()["path"] == "/fast"
    assert started.is_alive() and not slow  # answered while the slow one is still running
    release.touch()
    started.join(timeout=30)
    assert slow["r"].status_code == 200
    # Two instances, each with its own module state: neither saw the other's event.
    assert fast.json()["instance"] != slow["r"].json()["instance"]
    assert fast.json()["calls"] == ["/fast"] and slow["r"].json()["calls"] == ["/slow"]


def test_instances_are_reused_and_capped(front: tuple[str, Path, LocalFunction]) -> None:
    url, release, function = front
    release.touch()
    answers = [httpx.get(f"{url}/fast", timeout=10).json() for _ in range(5)]
    assert function.instances == 1  # one at a time needs one warm instance
    assert answers[-1]["calls"] == ["/fast"] * 5

    results: list[int] = []
    threads = [
        threading.Thread(target=lambda: results.append(httpx.get(f"{url}/fast", timeout=10).status_code))
        for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert results == [200] * 8 and function.instances <= function.max_instances == 2
