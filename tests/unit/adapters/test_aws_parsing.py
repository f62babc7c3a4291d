"""The fast DynamoDB response parser gives exactly what botocore's own parser gives."""

from __future__ import annotations

import base64
import json
from typing import Any

import botocore.session
from botocore.parsers import JSONParser

from engram.adapters.aws.parsing import FastJSONParser, FastParserFactory, fast_session

_BLOB = base64.b64encode(b"\x00\x01binary").decode()


def _parse(parser: JSONParser, operation: str, body: dict[str, Any], status: int = 200) -> Any:
    model = botocore.session.get_session().get_service_model("dynamodb")
    shape = model.operation_model(operation).output_shape
    return parser.parse({"status_code": status, "headers": {}, "body": json.dumps(body).encode()}, shape)


def _items() -> list[dict[str, Any]]:
    plain = {
        "pk": {"S": "T#acme#M#1"},
        "version": {"N": "3"},
        "valid_to": {"NULL": True},
        "is_protected": {"BOOL": False},
        "tags": {"SS": ["a", "b"]},
        "scores": {"NS": ["1", "2.5"]},
        "metadata": {"M": {"session": {"N": "2"}, "who": {"L": [{"S": "Caroline"}, {"M": {"x": {"S": "y"}}}]}}},
    }
    binary = {
        "pk": {"S": "T#acme#M#2"},
        "blob": {"B": _BLOB},
        "blobs": {"BS": [_BLOB]},
        "nested": {"M": {"inner": {"L": [{"B": _BLOB}, {"S": "text"}]}}},
    }
    return [plain, binary]


def test_items_with_and_without_binary_parse_as_botocore_parses_them() -> None:
    body = {"Responses": {"memory": _items()}, "UnprocessedKeys": {}}

    fast = _parse(FastJSONParser(), "BatchGetItem", body)

    assert fast == _parse(JSONParser(), "BatchGetItem", body)
    assert fast["Responses"]["memory"][1]["blob"]["B"] == b"\x00\x01binary"  # still decoded
    assert fast["Responses"]["memory"][1]["nested"]["M"]["inner"]["L"][0]["B"] == b"\x00\x01binary"


def test_errors_and_other_operations_parse_as_botocore_parses_them() -> None:
    error = {"__type": "com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException", "message": "no"}
    query = {"Items": _items(), "Count": 2, "LastEvaluatedKey": {"pk": {"S": "T#acme#M#2"}}}

    for operation, body, status in (("PutItem", error, 400), ("Query", query, 200)):
        fast = _parse(FastJSONParser(), operation, body, status)
        assert fast == _parse(JSONParser(), operation, body, status)
    assert fast["Items"][0]["version"] == {"N": "3"}


def test_the_session_builds_clients_with_the_fast_parser() -> None:
    session = fast_session()
    factory = session._session.get_component("response_parser_factory")

    assert isinstance(factory, FastParserFactory)
    assert isinstance(factory.create_parser("json"), FastJSONParser)
    assert not isinstance(factory.create_parser("query"), FastJSONParser)
