"""Page cursors for DynamoDB queries: the last item's key, base64 JSON, checked on the way back in."""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any

from engram.domain.errors import ValidationError

Item = dict[str, Any]


def encode_cursor(item: Item, keys: Sequence[str]) -> str:
    key = {name: item[name] for name in keys}
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str, keys: Sequence[str], partition_key: str, partition: str) -> Item:
    """The ExclusiveStartKey in `cursor`; a ValidationError naming `cursor` unless it is one of ours
    for this very partition (a cursor from another user's or tenant's listing must not steer a query)."""
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, UnicodeDecodeError, ValueError) as err:
        raise ValidationError("cursor", "is not a cursor returned by this API") from err
    valid = (
        isinstance(key, dict)
        and set(key) == set(keys)
        and all(isinstance(v, dict) and isinstance(v.get("S"), str) and len(v) == 1 for v in key.values())
    )
    if not valid or key[partition_key]["S"] != partition:
        raise ValidationError("cursor", "is not a cursor returned by this API for this listing")
    return dict(key)
