"""Pages over a sorted list of ids held in one place (an attachment's holders), with opaque cursors."""

from __future__ import annotations

import base64
import binascii
import bisect
import json
from collections.abc import Sequence

from engram.domain.errors import ValidationError


def page_after(ids: Sequence[str], limit: int, cursor: str | None, listing: str) -> tuple[list[str], str | None]:
    """The `limit` ids after the cursor's (all sorted), and the cursor for the next page (None at the
    end). `listing` names what is listed, so a cursor of another listing is refused (400 `cursor`)."""
    if limit < 1:
        raise ValidationError("limit", "must be at least 1")
    ordered = sorted(ids)
    start = bisect.bisect_right(ordered, _after(cursor, listing)) if cursor else 0
    page = ordered[start : start + limit]
    more = start + limit < len(ordered)
    return page, _cursor(page[-1], listing) if more and page else None


def _cursor(last: str, listing: str) -> str:
    return base64.urlsafe_b64encode(json.dumps({"l": listing, "after": last}).encode()).decode()


def _after(cursor: str, listing: str) -> str:
    try:
        decoded = json.loads(base64.urlsafe_b64decode(cursor.encode()))
    except (binascii.Error, UnicodeDecodeError, ValueError) as err:
        raise ValidationError("cursor", "is not a cursor returned by this API") from err
    if not isinstance(decoded, dict) or decoded.get("l") != listing or not isinstance(decoded.get("after"), str):
        raise ValidationError("cursor", "is not a cursor returned by this API for this listing")
    return str(decoded["after"])
