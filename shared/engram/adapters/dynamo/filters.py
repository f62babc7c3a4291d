"""Listing filters as a DynamoDB FilterExpression on the fact items (exact matches, like the index's)."""

from __future__ import annotations

from typing import Any

from boto3.dynamodb.types import TypeSerializer

from engram.adapters.dynamo.values import to_dynamo
from engram.domain.errors import ValidationError
from engram.domain.models import SearchFilters

_SER = TypeSerializer()


def add_filters(params: dict[str, Any], filters: SearchFilters | None) -> bool:
    if filters is None:
        return False
    if filters.attribute is not None or filters.subject is not None:
        # Statements are found by the index's keys; a listing has no such filter (the API offers none).
        raise ValidationError("filters.attribute", "statement filters apply to searches, not listings")
    parts: list[str] = []
    names: dict[str, str] = {}
    values: dict[str, Any] = params["ExpressionAttributeValues"]
    for field in ("agent_id", "run_id", "memory_bank", "fact_key", "is_protected"):
        value = getattr(filters, field, None)  # the last two: ListFilters only
        if value is not None:
            parts.append(f"#{field} = :{field}")
            names[f"#{field}"] = field
            values[f":{field}"] = {"BOOL": value} if isinstance(value, bool) else {"S": str(value)}
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
