"""A boto3 session whose JSON-protocol responses skip botocore's per-member walk of DynamoDB values.

botocore parses each DynamoDB AttributeValue by visiting the ten members its shape allows (S, N,
B, M, L, ...) for every attribute of every item: for a BatchGetItem of a dozen memories that walk
is about 60 % of the request's client CPU. Its result is the JSON it was given, except that binary
values (B, BS) are base64-decoded; so a value holding no binary is returned as received, and any
other goes through botocore's own parsing.
"""

from __future__ import annotations

from typing import Any

import boto3
import botocore.session
from botocore.model import Shape
from botocore.parsers import JSONParser, ResponseParser, ResponseParserFactory

_BINARY = ("B", "BS")


def _plain(value: Any) -> bool:
    """True when the AttributeValue holds no binary (B, BS) at any depth."""
    if not isinstance(value, dict):
        return False
    for tag, inner in value.items():
        if tag in _BINARY:
            return False
        if tag == "M":
            if not isinstance(inner, dict) or not all(_plain(v) for v in inner.values()):
                return False
        elif tag == "L" and (not isinstance(inner, list) or not all(_plain(v) for v in inner)):
            return False
    return True


class FastJSONParser(JSONParser):
    def _handle_structure(self, shape: Shape, value: Any) -> Any:
        if shape.name == "AttributeValue" and _plain(value):
            return value
        return super()._handle_structure(shape, value)  # type: ignore[misc]  # the stubs omit this hook


class FastParserFactory(ResponseParserFactory):
    def create_parser(self, protocol_name: str) -> ResponseParser:
        if protocol_name == "json":
            defaults: dict[str, Any] = vars(self).get("_defaults", {})  # what set_parser_defaults set
            return FastJSONParser(**defaults)
        return super().create_parser(protocol_name)


def fast_session() -> boto3.session.Session:
    core = botocore.session.get_session()
    core.register_component("response_parser_factory", FastParserFactory())
    return boto3.session.Session(botocore_session=core)
