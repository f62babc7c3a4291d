"""Page cursors over a user's partition of a DynamoDB index: the last item's key, base64 JSON.

A cursor is checked before it steers a query: only the expected key attributes, all strings, and the
caller's own partition, so another user's (or tenant's) cursor cannot read their listing.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Sequence
from typing import Any

from engram.domain.errors import ValidationError


def encode_cursor(item: dict[str, Any], keys: Sequence[str]) -> str:
    key = {name: item[name] for name in keys}
    return base64.urlsafe_b64encode(json.dumps(key, separators=(",", ":")).encode()).decode()


def decode_cursor(cursor: str, keys: Sequence[str], partition_attr: str, partition: str) -> dict[str, Any]:
    try:
        key = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, UnicodeDecodeError, ValueError) as err:
        raise ValidationError("cursor", "is not a cursor returned by this API") from err
    valid = (
        isinstance(key, dict)
        and set(key) == set(keys)
        and all(isinstance(v, dict) and isinstance(v.get("S"), str) and len(v) == 1 for v in key.values())
    )
    if not valid or key[partition_attr]["S"] != partition:
        raise ValidationError("cursor", "is not a cursor returned by this API for this user")
    return dict(key)
