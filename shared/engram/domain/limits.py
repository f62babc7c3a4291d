"""What one request may carry. Each limit is named in the error that enforces it; README's "Limits"
table lists them. Input over a limit is refused whole (413 / 422), never stored in part."""

from __future__ import annotations

import json
import math
from typing import Annotated, Any

from pydantic import AfterValidator, Field

MAX_BODY_BYTES = 6 * 1024 * 1024  # Lambda's synchronous payload limit: larger bodies never reach the function
MAX_JSON_DEPTH = 32  # DynamoDB stores at most 32 levels of nesting
MAX_MESSAGES = 500  # per add
MAX_MESSAGE_CHARS = 100_000  # per message; longer conversations are extracted window by window
MAX_QUERY_CHARS = 4_000
MAX_METADATA_BYTES = 16 * 1024  # as JSON
MAX_METADATA_DEPTH = 8
MAX_ID_CHARS = 256
MAX_CLOCK_SKEW_S = 300  # a message said "in the future" by more than this is refused (a client's clock may run ahead)
MIN_IMPORTANCE, MAX_IMPORTANCE = 0.0, 1.0  # a memory's importance; a client's value outside is a 422
# DynamoDB numbers: 38 significant digits, magnitude below 1e126; JSON has no NaN or Infinity.
_MAX_NUMBER = 1e125

# user_id, agent_id, run_id: printable (no control characters); they become parts of keys and logs.
ID_PATTERN = r"^[^\x00-\x1f\x7f]+$"
ScopeId = Annotated[str, Field(min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN)]
Importance = Annotated[float, Field(ge=MIN_IMPORTANCE, le=MAX_IMPORTANCE, allow_inf_nan=False)]
# Message text: anything printable or whitespace; NUL is refused (it truncates text in C-based tools).
MessageText = Annotated[str, Field(min_length=1, max_length=MAX_MESSAGE_CHARS, pattern=r"^[^\x00]*$")]


def _check_value(value: Any, path: str, depth: int) -> None:
    if depth > MAX_METADATA_DEPTH:
        raise ValueError(f"{path}: nested deeper than {MAX_METADATA_DEPTH} levels (limit MAX_METADATA_DEPTH)")
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return
    if isinstance(value, int | float):
        if isinstance(value, float) and not math.isfinite(value):
            raise ValueError(f"{path}: numbers must be finite")
        if abs(value) >= _MAX_NUMBER or (isinstance(value, int) and len(str(abs(value))) > 38):
            raise ValueError(f"{path}: numbers are limited to 38 digits")
        return
    if isinstance(value, dict):
        for key, item in value.items():
            _check_value(item, f"{path}.{key}", depth + 1)
        return
    if isinstance(value, list):
        for i, item in enumerate(value):
            _check_value(item, f"{path}[{i}]", depth + 1)
        return
    raise ValueError(f"{path}: unsupported value {type(value).__name__}")


def check_metadata(value: dict[str, Any]) -> dict[str, Any]:
    _check_value(value, "metadata", 0)
    size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    if size > MAX_METADATA_BYTES:
        raise ValueError(f"metadata is {size} bytes as JSON; the limit is {MAX_METADATA_BYTES} (MAX_METADATA_BYTES)")
    return value


Metadata = Annotated[dict[str, Any], AfterValidator(check_metadata)]
