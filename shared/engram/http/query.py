"""The query parameters routes share, declared once so each answers the same 422 for the same bad value."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from engram.domain.limits import ID_PATTERN, MAX_ID_CHARS

UserId = Annotated[str, Query(min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN)]
Limit = Annotated[int, Query(ge=1, le=1000)]
Cursor = Annotated[str | None, Query(max_length=4096)]
