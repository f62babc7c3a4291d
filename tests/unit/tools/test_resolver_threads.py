"""The local stack serves API instances on threads of one process: each must see its own request."""

from __future__ import annotations

import json
import threading
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver
from aws_lambda_powertools.event_handler.api_gateway import Router

from engram_tools.local import resolver_threads

router = Router()
barrier = threading.Barrier(2, timeout=10)


@router.post("/echo")
def echo() -> dict[str, Any]:
    barrier.wait()  # both requests are being resolved before either reads its event
    return {"body": router.current_event.json_body, "tenant": router.current_event.request_context.authorizer["t"]}


def event(tenant: str, body: dict[str, Any]) -> dict[str, Any]:
    return {
        "httpMethod": "POST",
        "path": "/echo",
        "resource": "/echo",
        "headers": {"content-type": "application/json"},
        "body": json.dumps(body),
        "requestContext": {"authorizer": {"t": tenant}, "requestId": tenant},
        "queryStringParameters": None,
        "multiValueHeaders": {},
        "isBase64Encoded": False,
    }


def test_two_instances_resolving_at_once_each_see_their_own_request() -> None:
    resolver_threads.install()
    apps = []
    for _ in range(2):  # two instances of one handler module sharing the router, as locally
        app = APIGatewayRestResolver()
        app.include_router(router)
        apps.append(app)
    answers: dict[str, Any] = {}

    def call(app: APIGatewayRestResolver, tenant: str) -> None:
        answers[tenant] = json.loads(app.resolve(event(tenant, {"from": tenant}), {})["body"])

    threads = [threading.Thread(target=call, args=(app, t)) for app, t in zip(apps, ("acme", "globex"), strict=True)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=20)
    assert answers == {
        "acme": {"body": {"from": "acme"}, "tenant": "acme"},
        "globex": {"body": {"from": "globex"}, "tenant": "globex"},
    }
