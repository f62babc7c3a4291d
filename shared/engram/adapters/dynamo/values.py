"""Python values to and from what DynamoDB stores: floats as exact Decimals, non-finite numbers refused;
instants as fixed-width text for sort keys; stored items back to plain dicts."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeDeserializer

from engram.domain.errors import ValidationError

_KEY_ATTRS = frozenset({"pk", "sk", "gsi1pk", "gsi1sk", "gsi2pk", "gsi2sk", "item_type"})
_DE = TypeDeserializer()


def to_dynamo(value: Any, path: str = "value") -> Any:
    """Python value -> what TypeSerializer accepts (floats become exact Decimals)."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValidationError(path, "must be a finite number")
        return Decimal(repr(value))
    if isinstance(value, dict):
        return {str(k): to_dynamo(v, f"{path}.{k}") for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [to_dynamo(v, f"{path}[{i}]") for i, v in enumerate(value)]
    return value


def from_dynamo(value: Any) -> Any:
    """Inverse of to_dynamo: Decimals back to int when integral, float otherwise."""
    if isinstance(value, Decimal):
        return int(value) if value == value.to_integral_value() else float(value)
    if isinstance(value, dict):
        return {k: from_dynamo(v) for k, v in value.items()}
    if isinstance(value, list | set | tuple):
        return [from_dynamo(v) for v in value]
    return value


def iso(dt: datetime) -> str:
    """Fixed-width UTC ISO-8601, so that sort keys order the same way as the instants."""
    aware = dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def plain_item(item: dict[str, Any]) -> dict[str, Any]:
    return {k: from_dynamo(_DE.deserialize(v)) for k, v in item.items() if k not in _KEY_ATTRS}
