"""A Markdown table of the report: figures rounded the same way in every section."""

from __future__ import annotations

from typing import Any


def table(header: list[str], rows: list[list[Any]]) -> list[str]:
    def cell(value: Any) -> str:
        if isinstance(value, float):
            return f"{value:.3f}" if abs(value) < 10 else f"{value:.1f}"
        return "" if value is None else str(value)

    return [
        "| " + " | ".join(header) + " |",
        "|" + "---|" * len(header),
        *("| " + " | ".join(cell(v) for v in row) + " |" for row in rows),
    ]
