"""POST /v1/chat/completions (a Powertools Router the API handler includes): HTTP glue only; the
steps are services/chat_proxy.py. The local stack streams `stream: true` itself (local/chat_stream.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.exceptions import RequestValidationError
from pydantic import TypeAdapter
from pydantic import ValidationError as PydanticError

from engram import bootstrap
from engram.domain.chat import USER_HEADER, ChatRequest, UpstreamError
from engram.domain.errors import ValidationError
from engram.domain.limits import ScopeId
from engram.http.authorization import tenant_of
from engram.http.operation_docs import OPERATIONS

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated

TASK_HEADER = "x-engram-task-id"
NO_STREAMING = (
    "streaming needs Lambda response streaming, which API Gateway REST APIs do not offer: send "
    "stream: false here (the answer comes whole), or stream through the local stack (make run)"
)
_USER_ID: TypeAdapter[str] = TypeAdapter(ScopeId)


def chat_user(request: ChatRequest, headers: Mapping[str, str]) -> str:
    """Whose memories: the body's `user`, else the x-engram-user-id header (RequestValidationError
    naming `user` when neither says)."""
    if request.user:
        return request.user
    value = next((v for k, v in headers.items() if k.lower() == USER_HEADER), None)
    if value is None:
        message = f"say whose memories to use: the OpenAI `user` field, or the {USER_HEADER} header"
        raise RequestValidationError([{"loc": ("body", "user"), "msg": message, "type": "missing"}])
    try:
        return _USER_ID.validate_python(value)
    except PydanticError as exc:
        raise RequestValidationError([{**e, "loc": ("header", USER_HEADER)} for e in exc.errors()]) from exc


def relayed_status(status: int) -> int:
    """The model server's error status as the proxy answers it: its 4xx as they are (the request's
    fault, the client's to fix), its 5xx as 502 (a bad gateway, not an Engram failure)."""
    return status if 400 <= status < 500 else 502


@router.post("/v1/chat/completions", **OPERATIONS["chat_completions"])
def chat_completions(body: ChatRequest) -> Response[dict[str, Any]]:
    event = router.current_event
    user_id = chat_user(body, event.headers)
    if body.stream:
        raise ValidationError("stream", NO_STREAMING)
    proxy = bootstrap.container().chat_proxy
    call = proxy.prepare(tenant_of(event), user_id, body)
    try:
        reply, task = proxy.complete(call)
    except UpstreamError as error:
        return Response(relayed_status(error.status), content_types.APPLICATION_JSON, error.body)
    headers = {TASK_HEADER: task.task_id} if task is not None else None
    return Response(reply.status, content_types.APPLICATION_JSON, reply.body, headers=headers)
