"""The OpenAPI document of the API: what /openapi.json and /docs answer.

Routes carry their own tags, summary and description (`operation(...)` below); this module adds what is
the same for the whole document: the API-key security scheme, the tag descriptions, request examples, and
a `servers` entry for the URL the document was fetched under, so Swagger UI's "Try it out" calls the API
on AWS (`/<stage>` on the execute-api host, a base path on a custom domain) and on `make run` (the root).

Nothing here imports Powertools' OpenAPI models at module level: the API's cold start does not need them.
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from aws_lambda_powertools.event_handler import APIGatewayRestResolver

from engram.domain.limits import MAX_BODY_BYTES
from engram.http.errors import openai_shaped

TITLE = "Engram"
VERSION = "1.0.0"
SCHEME = "ApiKey"
API_KEY: list[dict[str, list[str]]] = [{SCHEME: []}]  # an operation's `security`: the x-api-key header

TAGS: dict[str, str] = {
    "memories": "Add conversations (facts are extracted in the background), list, read, correct and forget a "
    "user's memories, see how each one changed, and list the tenant's users.",
    "search": "Rank a user's memories by relevance to a query (vector and keyword), with graph relations.",
    "tasks": "Follow the work an add or a delete-all queued: status, the memories it made, counts, LLM usage.",
    "attachments": "Upload files (inline or to a presigned URL) to attach to memories, and read them back.",
    "graph": "A user's entity graph: the people, places and things in their memories and their relations.",
    "config": "The tenant's memory policy: instructions for the LLM, banks or topics to include or exclude, prompts.",
    "maintenance": "Start and follow a maintenance run: repair index drift, expire, dedupe, summarise, prune.",
    "chat": "OpenAI-compatible chat completions with the user's memories added and the exchange remembered.",
    "operations": "Health, the extraction queue's figures, usage per day, and this document.",
}


def operation(tag: str, summary: str, description: str, *, key: bool = True) -> dict[str, Any]:
    """A route's OpenAPI fields, as keyword arguments of the route decorator. The key is needed unless
    `key=False` (a route API Gateway serves without the authorizer, as template.yaml says)."""
    if tag not in TAGS:
        raise ValueError(f"unknown OpenAPI tag {tag!r}: one of {', '.join(TAGS)}")
    return {"tags": [tag], "summary": summary, "description": description, "security": API_KEY if key else None}


_ADD_EXAMPLE = {
    "user_id": "alice",
    "messages": [
        {"role": "user", "content": "Hi, I am Alice. I live in Berlin and I love pizza."},
        {"role": "assistant", "content": "Nice to meet you, Alice!"},
    ],
    "metadata": {"source": "chat"},
}
_CHAT_EXAMPLE = {
    "user": "alice",
    "messages": [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "Where should I go for dinner tonight?"},
    ],
}
# (path, method) -> the named examples of its JSON request body; the first one fills "Try it out".
EXAMPLES: dict[tuple[str, str], dict[str, dict[str, Any]]] = {
    ("/v1/memories", "post"): {
        "conversation": {"summary": "A conversation to remember", "value": _ADD_EXAMPLE},
        "raw": {
            "summary": "Store a note as it is (no extraction)",
            "value": {"user_id": "alice", "messages": [{"role": "user", "content": "Prefers tea"}], "infer": False},
        },
    },
    ("/v1/chat/completions", "post"): {"chat": {"summary": "A chat turn with memory", "value": _CHAT_EXAMPLE}},
    ("/v1/memories/search", "post"): {
        "question": {"summary": "Ask about a user", "value": {"user_id": "alice", "query": "where does she live?"}},
        "filtered": {
            "summary": "Top 3 in one bank, above a score",
            "value": {
                "user_id": "alice",
                "query": "food she likes",
                "top_k": 3,
                "threshold": 0.2,
                "filters": {"memory_bank": "Interests"},
            },
        },
    },
    ("/v1/memories/{memory_id}", "patch"): {
        "text": {"summary": "Correct the text", "value": {"text": "Lives in Munich since 2024"}},
        "protect": {"summary": "Protect it from pruning", "value": {"is_protected": True, "importance": 0.9}},
    },
}


@cache
def _document(app: APIGatewayRestResolver) -> dict[str, Any]:
    """The document without `servers` (the one part that depends on the request), built once per app."""
    from aws_lambda_powertools.event_handler.openapi.models import APIKey, APIKeyIn, Tag

    scheme = APIKey.model_validate(
        {"in": APIKeyIn.header, "name": "x-api-key", "description": "The tenant's API key (`make run` prints one)."}
    )
    document: dict[str, Any] = json.loads(
        app.get_openapi_json_schema(
            title=TITLE,
            version=VERSION,
            description="Long-term memory for AI assistants. Every operation but the health check and this "
            "document needs the `x-api-key` header: press Authorize and paste the key.",
            tags=[Tag(name=name, description=text) for name, text in TAGS.items()],
            security_schemes={SCHEME: scheme},
        )
    )
    document["paths"] = dict(sorted(document["paths"].items()))  # by path within each tag, as a reader looks
    for (path, method), examples in EXAMPLES.items():
        body = document["paths"][path][method]["requestBody"]["content"]["application/json"]
        body["examples"] = examples
    with_error_answers(document)
    return document


# The API's one error shape (docs/errors.md), in place of the framework's generic 422 schema.
ERROR_SCHEMAS: dict[str, Any] = {
    "Error": {
        "type": "object",
        "title": "Error",
        "description": "Every 4xx and 5xx the API gives (API Gateway's own answers too) has this shape.",
        "required": ["error", "message"],
        "properties": {
            "error": {"type": "string", "description": "What kind of error: a stable code to branch on."},
            "message": {"type": "string", "description": "A sentence saying what went wrong and what to do."},
            "field": {"type": "string", "description": "The input at fault (a dotted path), when there is one."},
            "detail": {
                "type": "array",
                "description": "Validation errors (422): each field at fault with its message.",
                "items": {"$ref": "#/components/schemas/ErrorDetail"},
            },
        },
    },
    "ErrorDetail": {
        "type": "object",
        "title": "ErrorDetail",
        "required": ["field", "loc", "type", "message"],
        "properties": {
            "field": {"type": "string"},
            "loc": {"type": "array", "items": {"type": "string"}},
            "type": {"type": "string"},
            "message": {"type": "string"},
        },
    },
    "ChatError": {
        "type": "object",
        "title": "ChatError",
        "description": "The chat proxy's errors: OpenAI's shape (the openai SDKs show error.message), with "
        "Engram's message, field and detail beside it.",
        "required": ["error", "message"],
        "properties": {
            "error": {
                "type": "object",
                "properties": {
                    "message": {"type": "string"},
                    "type": {"type": "string"},
                    "code": {"type": "string", "description": "Engram's error code"},
                    "param": {"type": "string", "nullable": True},
                },
            },
            "message": {"type": "string"},
            "field": {"type": "string"},
            "detail": {"type": "array", "items": {"$ref": "#/components/schemas/ErrorDetail"}},
        },
    },
}

# status -> (description, example body)
ERROR_EXAMPLES: dict[str, tuple[str, dict[str, Any]]] = {
    "400": (
        "The body is not JSON, or breaks a rule the schema cannot say",
        {
            "error": "InvalidJSONError",
            "message": "the body is not valid JSON: Expecting ',' delimiter at line 1, column 33 (character 32)",
        },
    ),
    "401": (
        "No API key",
        {
            "error": "UnauthorizedError",
            "message": "no API key: send it in the x-api-key header (ENGRAM_API_KEY for the clients)",
        },
    ),
    "403": (
        "The API key is unknown or revoked",
        {
            "error": "ForbiddenError",
            "message": "the API key in x-api-key is unknown or revoked (check ENGRAM_API_KEY)",
        },
    ),
    "404": ("Not found", {"error": "NotFoundError", "message": "memory 'mem_123' not found"}),
    "413": (
        "The body is over the size limit",
        {
            "error": "PayloadTooLargeError",
            "message": f"the body is {MAX_BODY_BYTES + 1} bytes; the limit is {MAX_BODY_BYTES} (MAX_BODY_BYTES)",
        },
    ),
    "415": (
        "The body is not JSON",
        {"error": "UnsupportedMediaTypeError", "message": "the body must be JSON (content-type: application/json)"},
    ),
    "422": (
        "Fields at fault",
        {
            "error": "RequestValidationError",
            "message": "user_id: Field required",
            "field": "user_id",
            "detail": [
                {"field": "user_id", "loc": ["body", "user_id"], "type": "missing", "message": "Field required"}
            ],
        },
    ),
    "429": (
        "Over the API key's request rate",
        {"error": "ThrottledError", "message": "Too Many Requests: this API key is over 100 requests a second"},
    ),
    "500": ("An unexpected failure", {"error": "InternalError", "message": "Internal server error"}),
}
_WITH_BODY = ("400", "413", "415", "422")
_WITH_KEY = ("401", "403", "429")


def with_error_answers(document: dict[str, Any]) -> None:
    """Each operation's error answers (which statuses it can give, in the one error shape, with an example)."""
    schemas = document.setdefault("components", {}).setdefault("schemas", {})
    for generic in ("HTTPValidationError", "ValidationError"):
        schemas.pop(generic, None)
    schemas.update(ERROR_SCHEMAS)
    for path, operations in document["paths"].items():
        for operation in operations.values():
            statuses = ["500"]
            statuses += list(_WITH_KEY) if operation.get("security") else []
            statuses += list(_WITH_BODY) if "requestBody" in operation or operation.get("parameters") else []
            statuses += ["404"] if "{" in path else []
            statuses += ["422"] if "422" in operation.get("responses", {}) else []  # the framework's, replaced
            schema = "ChatError" if path == "/v1/chat/completions" else "Error"
            responses = operation.setdefault("responses", {})
            for status in sorted(set(statuses)):
                description, example = ERROR_EXAMPLES[status]
                if schema == "ChatError":
                    example = openai_shaped(int(status), example)
                media = {"schema": {"$ref": f"#/components/schemas/{schema}"}, "example": example}
                responses[status] = {"description": description, "content": {"application/json": media}}


def served_prefix(event: dict[str, Any]) -> str:
    """The part of the URL the client put before the API's routes: `/<stage>` on the execute-api host,
    a base path mapping on a custom domain, nothing on a custom domain's root or on `make run`.

    requestContext.path is the path as the client sent it; the route's own path (`resource`, a literal for
    the routes that call this) is at its end, so what comes before is the prefix."""
    requested = str((event.get("requestContext") or {}).get("path") or "")
    route = str(event.get("resource") or event.get("path") or "")
    if route and requested.endswith(route):
        return requested[: len(requested) - len(route)].rstrip("/")
    return ""


def document_json(app: APIGatewayRestResolver) -> str:
    """The OpenAPI document, its server the URL prefix of the request being answered."""
    prefix = served_prefix(app.current_event.raw_event)
    document = {**_document(app), "servers": [{"url": prefix or "/", "description": "the API this document came from"}]}
    return json.dumps(document, separators=(",", ":"))
