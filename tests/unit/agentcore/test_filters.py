"""AgentCore's metadata filters, all of which must hold."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from engram.domain.agentcore import MetadataFilter, metadata_keeps

META = {"topic": "drink", "weight": 2.0, "tags": ["a", "b"], "at": "2026-01-02T00:00:00+00:00"}


@pytest.mark.parametrize(
    ("operator", "key", "value", "kept"),
    [
        ("EQUALS_TO", "topic", "drink", True),
        ("EQUALS_TO", "topic", "food", False),
        ("EXISTS", "topic", None, True),
        ("EXISTS", "colour", None, False),
        ("NOT_EXISTS", "colour", None, True),
        ("NOT_EXISTS", "topic", None, False),
        ("CONTAINS", "tags", "b", True),
        ("CONTAINS", "tags", "c", False),
        ("GREATER_THAN", "weight", 1.5, True),
        ("GREATER_THAN", "weight", 2.0, False),
        ("GREATER_THAN_OR_EQUALS", "weight", 2.0, True),
        ("LESS_THAN", "weight", 2.5, True),
        ("LESS_THAN_OR_EQUALS", "weight", 1.0, False),
        ("BEFORE", "at", datetime(2026, 2, 1, tzinfo=UTC), True),
        ("AFTER", "at", datetime(2026, 2, 1, tzinfo=UTC), False),
        ("GREATER_THAN", "topic", 1.0, False),  # a text does not compare with a number
        ("BEFORE", "weight", datetime(2026, 2, 1, tzinfo=UTC), False),
    ],
)
def test_each_operator(operator: str, key: str, value: object, kept: bool) -> None:
    assert metadata_keeps([MetadataFilter(key, operator, value)], META) is kept  # type: ignore[arg-type]


def test_filters_are_anded() -> None:
    drink = MetadataFilter("topic", "EQUALS_TO", "drink")
    heavy = MetadataFilter("weight", "GREATER_THAN", 5.0)
    assert metadata_keeps([drink], META) and not metadata_keeps([drink, heavy], META)
    assert metadata_keeps([], META)
