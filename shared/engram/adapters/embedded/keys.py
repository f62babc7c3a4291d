"""What the embedded index makes of its inputs: the exact-match filter keys (what a document can be
filtered on, and what a query's filters ask for, both as (field, canonical value) pairs) and unit
vectors.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence

import numpy as np
import numpy.typing as npt

from engram.domain.errors import ValidationError
from engram.domain.models import SearchFilters
from engram.domain.statements import Statement
from engram.text.terms import filter_value

FilterKey = tuple[str, str]  # (field, canonical value), e.g. ("metadata.color", "red")
# What a memory states (domain/statements.py): its statements' attributes, subjects, and both together.
ATTRIBUTE, SUBJECT, STATEMENT = "statement.attribute", "statement.subject", "statement"


def _flatten(metadata: dict[str, object], prefix: str = "") -> Iterator[tuple[str, object]]:
    """Dotted paths to scalar values, lists expanded (how OpenSearch flat_object sees them)."""
    for key, value in metadata.items():
        path = f"{prefix}{key}"
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, dict):
                yield from _flatten(item, path + ".")
            else:
                yield path, item


def doc_keys(
    agent_id: str | None,
    run_id: str | None,
    memory_bank: str,
    metadata: dict[str, object],
    stated: Sequence[tuple[str, str]] = (),
) -> list[FilterKey]:
    """`stated`: the (subject, attribute) of each of the memory's statements (stated_keys)."""
    keys: list[FilterKey] = [("memory_bank", memory_bank)]
    if agent_id is not None:
        keys.append(("agent_id", agent_id))
    if run_id is not None:
        keys.append(("run_id", run_id))
    keys.extend((f"metadata.{path}", filter_value(value)) for path, value in _flatten(metadata))
    for subject, attribute in stated:
        # One key per pair as well, so that attribute and subject filters together ask for one statement.
        keys += [(ATTRIBUTE, attribute), (SUBJECT, subject), (STATEMENT, f"{subject}\x1f{attribute}")]
    return list(dict.fromkeys(keys))


def stated_keys(statements: Sequence[Statement]) -> list[tuple[str, str]]:
    return list(dict.fromkeys((s.subject, s.attribute) for s in statements))


def wanted_keys(filters: SearchFilters | None) -> list[FilterKey]:
    if filters is None:
        return []
    keys: list[FilterKey] = []
    for field in ("agent_id", "run_id", "memory_bank"):
        value = getattr(filters, field)
        if value is not None:
            keys.append((field, value))
    keys.extend((f"metadata.{name}", filter_value(value)) for name, value in filters.metadata.items())
    if filters.attribute is not None and filters.subject is not None:
        keys.append((STATEMENT, f"{filters.subject}\x1f{filters.attribute}"))
    elif filters.attribute is not None:
        keys.append((ATTRIBUTE, filters.attribute))
    elif filters.subject is not None:
        keys.append((SUBJECT, filters.subject))
    return keys


def unit_vector(vector: Sequence[float], dimensions: int, field: str = "vector") -> npt.NDArray[np.float32]:
    array = np.asarray(vector, dtype=np.float32)
    if array.shape != (dimensions,):
        raise ValidationError(field, f"expected {dimensions} dimensions, got {array.size}")
    norm = float(np.linalg.norm(array))
    if not math.isfinite(norm) or norm == 0.0:
        raise ValidationError(field, "vector must be finite and non-zero")
    unit: npt.NDArray[np.float32] = array / np.float32(norm)
    return unit
