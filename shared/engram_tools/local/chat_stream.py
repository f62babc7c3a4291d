"""`stream: true` on POST /v1/chat/completions, for the local stack only.

API Gateway's REST APIs buffer a Lambda's answer, so the API function refuses to stream (400 naming
`stream`). Locally the front streams instead: the request goes through the gateway's throttling and
authorizer like any other, then to the same ChatProxy service the API function uses, and its
server-sent events are written to the client as they come."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from pydantic import ValidationError as PydanticError

from engram.domain.chat import ChatRequest, UpstreamError
from engram.domain.errors import EngramError
from engram.http.chat_routes import chat_user, relayed_status
from engram.http.errors import openai_shaped, retry_headers, to_http, validation_body, validation_response
from engram.http.screen import screen
from engram_tools.local.api_gateway import ApiGateway, Reply, Request

PATH = "/v1/chat/completions"


def wants_stream(request: Request) -> bool:
    """A chat completion asking for `stream: true` (anything else goes to the API function)."""
    if request.method != "POST" or urlsplit(request.target).path != PATH:
        return False
    try:
        body = json.loads(request.body)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False  # the API function answers what is wrong with it
    return isinstance(body, dict) and body.get("stream") is True


def open_stream(gateway: ApiGateway, request: Request) -> Reply | Iterator[bytes]:
    """The events to write (the model server already answered 200), or the error reply."""
    admitted = gateway.admit(request)
    if isinstance(admitted, Reply):
        return admitted
    _, event = admitted
    refused = screen(event)
    if refused is not None:
        return _error(refused["statusCode"], json.loads(refused["body"]))
    try:
        chat = ChatRequest.model_validate_json(request.body)
        user_id = chat_user(chat, dict(request.headers))
        from engram.bootstrap import container

        proxy = container().chat_proxy
        call = proxy.prepare(str(event["requestContext"]["authorizer"]["tenant_id"]), user_id, chat)
        return proxy.stream(call)
    except PydanticError as exc:
        return _error(422, validation_body([_in_body(e) for e in exc.errors()]))
    except RequestValidationError as exc:
        return _error(*validation_response(exc.errors(), exc.body))
    except UpstreamError as exc:
        return Reply.json(relayed_status(exc.status), exc.body)
    except EngramError as exc:
        status, body = to_http(exc)
        return _error(status, body, list(retry_headers(exc).items()))


def _error(status: int, body: dict[str, Any], headers: list[tuple[str, str]] | None = None) -> Reply:
    """An error as the API function answers it on this route: Engram's shape, OpenAI's too."""
    return Reply.json(status, openai_shaped(status, body), headers)


def _in_body(error: Any) -> dict[str, Any]:
    return {**error, "loc": ("body", *error["loc"])}
