"""Python values to and from what DynamoDB stores: floats as exact Decimals, non-finite numbers refused."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

from engram.domain.errors import ValidationError


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
