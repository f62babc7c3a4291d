"""Python values to DynamoDB attribute values and back, and the filter expressions built from them."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from boto3.dynamodb.types import TypeSerializer

from engram.domain.errors import ValidationError
from engram.domain.models import SearchFilters

_SER = TypeSerializer()


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


def add_filters(params: dict[str, Any], filters: SearchFilters | None) -> bool:
    """Adds the FilterExpression for `filters` to query `params`; True when there is one."""
    if filters is None:
        return False
    parts: list[str] = []
    names: dict[str, str] = {}
    values: dict[str, Any] = params["ExpressionAttributeValues"]
    for field in ("agent_id", "run_id", "memory_bank"):
        value = getattr(filters, field)
        if value is not None:
            parts.append(f"#{field} = :{field}")
            names[f"#{field}"] = field
            values[f":{field}"] = {"S": str(value)}
    for i, (key, value) in enumerate(sorted(filters.metadata.items())):
        parts.append(f"#metadata.#mk{i} = :mv{i}")
        names["#metadata"] = "metadata"
        names[f"#mk{i}"] = key
        values[f":mv{i}"] = _SER.serialize(to_dynamo(value, f"metadata.{key}"))
    if not parts:
        return False
    params["FilterExpression"] = " AND ".join(parts)
    params["ExpressionAttributeNames"] = names
    return True
