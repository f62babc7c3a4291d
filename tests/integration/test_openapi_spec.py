"""The OpenAPI document /openapi.json and /docs serve: a server that is where the API is, the x-api-key
scheme on exactly the operations API Gateway guards, tags and summaries a reader can navigate by, and
request examples that the API accepts."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from engram.domain.models import AddRequest
from engram.http.models import PatchBody, SearchBody
from engram_tools.local.template import load_template
from tests.integration.stack import Stack
from tests.support.handlers import ROOT, FakeContext, api_event, load_function

TAGS = {"memories", "search", "tasks", "attachments", "graph", "maintenance", "chat", "operations", "config"}
METHODS = {"get", "put", "post", "patch", "delete"}


def fetch(api: Any, route: str, client_path: str, stage: str = "dev", **query: str) -> dict[str, Any]:
    """GET `route` (/openapi.json or /docs) as API Gateway passes it when the client asked for `client_path`."""
    event = api_event("GET", route, query=query or None, tenant=None)
    event["requestContext"].update(path=client_path, stage=stage)  # the path as the client sent it
    answer = api.lambda_handler(event, FakeContext())
    assert answer["statusCode"] == 200, answer
    document: dict[str, Any] = json.loads(answer["body"])
    return document


@pytest.fixture
def api(stack: Stack) -> Any:
    return load_function("api")


@pytest.fixture
def spec(api: Any) -> dict[str, Any]:
    return fetch(api, "/openapi.json", "/openapi.json")


def operations(spec: dict[str, Any]) -> list[tuple[str, str, dict[str, Any]]]:
    return [(m, p, op) for p, item in spec["paths"].items() for m, op in item.items() if m in METHODS]


@pytest.mark.parametrize(
    ("client_path", "server"),
    [
        ("/dev/openapi.json", "/dev"),  # the execute-api URL: the stage comes first
        ("/prod/openapi.json", "/prod"),
        ("/memory/openapi.json", "/memory"),  # a custom domain with a base path mapping
        ("/openapi.json", "/"),  # a custom domain's root, and `make run` (routes at the root)
    ],
)
def test_the_server_is_the_prefix_the_document_was_fetched_under(api: Any, client_path: str, server: str) -> None:
    stage = client_path.split("/")[1] if client_path.startswith(("/dev/", "/prod/")) else "dev"
    assert [s["url"] for s in fetch(api, "/openapi.json", client_path, stage)["servers"]] == [server]


def test_the_docs_page_gets_the_same_server(api: Any) -> None:
    assert fetch(api, "/docs", "/dev/docs", format="json")["servers"][0]["url"] == "/dev"
    assert fetch(api, "/docs", "/docs", format="json")["servers"][0]["url"] == "/"


def test_the_docs_page_inlines_the_document_with_the_key_scheme(api: Any) -> None:
    event = api_event("GET", "/docs", tenant=None)
    page = api.lambda_handler(event, FakeContext())
    assert page["statusCode"] == 200 and page["multiValueHeaders"]["Content-Type"] == ["text/html"]
    assert '"securitySchemes":{"ApiKey"' in page["body"] and "SwaggerUIBundle" in page["body"]
    assert "//cdn" not in page["body"] and "unpkg.com" not in page["body"]  # Swagger UI's files are inline


def test_the_api_key_scheme_is_the_x_api_key_header(spec: dict[str, Any]) -> None:
    scheme = spec["components"]["securitySchemes"]["ApiKey"]
    assert (scheme["type"], scheme["in"], scheme["name"]) == ("apiKey", "header", "x-api-key")


def test_the_key_is_asked_for_on_exactly_the_operations_the_gateway_guards(spec: dict[str, Any]) -> None:
    guarded = {
        (r.method.lower(), r.path): r.authorizer is not None for r in load_template(ROOT / "template.yaml").api.routes
    }
    documented = operations(spec)
    assert len(documented) >= 20
    for method, path, op in documented:
        assert (method, path) in guarded, f"{method} {path} is documented but not in template.yaml"
        expected = [{"ApiKey": []}] if guarded[(method, path)] else None
        assert op.get("security") == expected, (method, path)
    open_ones = {(m, p) for m, p, op in documented if not op.get("security")}
    assert open_ones == {("get", "/health"), ("get", "/openapi.json")}


def test_every_operation_has_a_known_tag_and_says_what_it_does(spec: dict[str, Any]) -> None:
    assert {t["name"] for t in spec["tags"]} == TAGS
    assert all(len(t["description"]) > 20 for t in spec["tags"])
    summaries = set()
    for method, path, op in operations(spec):
        assert len(op["tags"]) == 1 and op["tags"][0] in TAGS, (method, path)
        summary = op["summary"]
        assert path not in summary and not summary.startswith("/") and method.upper() not in summary.split()
        assert len(op["description"]) > len(summary), (method, path)
        summaries.add(summary)
    assert len(summaries) == len(operations(spec))  # no two operations read alike
    used = {op["tags"][0] for _, _, op in operations(spec)}
    assert used == TAGS


@pytest.mark.parametrize(
    ("path", "method", "model"),
    [
        ("/v1/memories", "post", AddRequest),
        ("/v1/memories/search", "post", SearchBody),
        ("/v1/memories/{memory_id}", "patch", PatchBody),
    ],
)
def test_the_main_request_bodies_have_examples_the_api_accepts(
    spec: dict[str, Any], path: str, method: str, model: type[BaseModel]
) -> None:
    examples = spec["paths"][path][method]["requestBody"]["content"]["application/json"]["examples"]
    assert len(examples) >= 2
    for example in examples.values():
        assert example["summary"]
        model.model_validate(example["value"])  # raises on an example the API would answer 422


def test_the_memory_page_is_not_an_api_operation(spec: dict[str, Any]) -> None:
    assert not {"/ui", "/ui/{name}", "/docs"} & set(spec["paths"])


def test_errors_are_documented_in_the_one_shape_with_examples(spec: dict[str, Any]) -> None:
    schemas = spec["components"]["schemas"]
    assert "HTTPValidationError" not in schemas  # the framework's generic 422
    assert {"error", "message", "field", "detail"} <= set(schemas["Error"]["properties"])
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            errors = {status: r for status, r in operation["responses"].items() if status >= "400"}
            assert "500" in errors, (method, path)
            if operation.get("security"):
                assert {"401", "403", "429"} <= set(errors), (method, path)
            if "requestBody" in operation:
                assert {"400", "413", "415", "422"} <= set(errors), (method, path)
            for status, response in errors.items():
                if status == "503" and path == "/health":
                    continue  # the health report says which check failed
                media = response["content"]["application/json"]
                wanted = "ChatError" if path == "/v1/chat/completions" else "Error"
                assert media["schema"] == {"$ref": f"#/components/schemas/{wanted}"}, (method, path, status)
                example = media["example"]
                code = example["error"]["code"] if wanted == "ChatError" else example["error"]
                assert code and example["message"], (method, path, status)
    add_422 = spec["paths"]["/v1/memories"]["post"]["responses"]["422"]["content"]["application/json"]["example"]
    assert add_422["field"] == "user_id" and add_422["detail"][0]["field"] == "user_id"


def test_a_memory_as_engram_answers_it_lists_its_statements(spec: dict[str, Any]) -> None:
    """GET /v1/memories/{id}, the list, search and PATCH answer MemoryView: its statements are documented."""
    schemas = spec["components"]["schemas"]
    statements = schemas["MemoryView"]["properties"]["statements"]
    assert statements["type"] == "array" and statements["items"] == {"$ref": "#/components/schemas/Statement"}
    assert set(schemas["Statement"]["properties"]) == {
        "subject",
        "attribute",
        "value",
        "polarity",
        "single",
        "event_time",
        "outdated_by",
    }
    assert set(schemas["Statement"]["properties"]["polarity"]["enum"]) == {
        "asserted",
        "ended",
        "denied",
        "hedged",
        "past",
    }
