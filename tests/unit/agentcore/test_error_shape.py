"""Errors on AgentCore's routes are AgentCore's, as botocore reads them: the modeled exception by name,
the message, and for a ValidationException its reason and the fields at fault; Engram's routes keep theirs."""

from __future__ import annotations

import json

import botocore.session
import pytest
from botocore.parsers import RestJSONParser

from engram.domain.errors import ForbiddenError, NotFoundError, ValidationError
from engram.http.errors import error_response, to_http, validation_response

MODEL = botocore.session.get_session().get_service_model("bedrock-agentcore")
ROUTE = "/memories/{memoryId}/events"


def parsed(status: int, body: dict[str, object], headers: dict[str, str] | None = None) -> dict[str, object]:
    answer = error_response(ROUTE, status, body, headers)
    raw = {
        "status_code": answer.status_code,
        "headers": {k: v for k, v in (answer.headers or {}).items()},
        "body": json.dumps(answer.body).encode(),
    }
    # As the client does: the error's code, then its modeled members read with that exception's shape.
    reply = dict(RestJSONParser().parse(raw, MODEL.operation_model("CreateEvent").output_shape))
    code = reply["Error"]["Code"]  # type: ignore[index]
    shapes = {s.name: s for s in MODEL.operation_model("CreateEvent").error_shapes}
    assert code in shapes, code
    return reply | dict(RestJSONParser().parse(raw, shapes[code]))


@pytest.mark.parametrize(
    ("error", "code", "status"),
    [
        (NotFoundError("memory", "x"), "ResourceNotFoundException", 404),
        (ForbiddenError("the request signature we calculated does not match"), "AccessDeniedException", 403),
        (ValidationError("actorId", "bad"), "ValidationException", 400),
    ],
)
def test_botocore_reads_each_domain_error_as_agentcores_exception(error: Exception, code: str, status: int) -> None:
    reply = parsed(*to_http(error))  # type: ignore[arg-type]
    assert reply["Error"] == {"Code": code, "Message": str(error)}  # type: ignore[comparison-overlap]
    assert reply["ResponseMetadata"]["HTTPStatusCode"] == status  # type: ignore[index]


def test_a_validation_exception_names_each_field_at_fault() -> None:
    errors = [{"loc": ("body", "payload", 0, "conversational", "role"), "msg": "bad role", "type": "enum"}]
    reply = parsed(*validation_response(errors))
    assert reply["Error"]["Code"] == "ValidationException"  # type: ignore[index]
    assert reply["reason"] == "FieldValidationFailed"
    assert reply["fieldList"] == [{"name": "payload.0.conversational.role", "message": "bad role"}]


def test_a_body_that_is_not_json_cannot_be_parsed() -> None:
    errors = [{"loc": ("body", 5), "msg": "JSON decode error", "type": "json_invalid", "ctx": {"error": "x"}}]
    reply = parsed(*validation_response(errors, '{"a":}'))
    assert (reply["Error"]["Code"], reply["reason"]) == ("ValidationException", "CannotParse")  # type: ignore[index]


def test_engrams_own_routes_keep_the_one_shape() -> None:
    answer = error_response("/v1/memories/{memory_id}", *to_http(NotFoundError("memory", "x")))
    assert answer.body == {"error": "NotFoundError", "message": "memory 'x' not found"}
