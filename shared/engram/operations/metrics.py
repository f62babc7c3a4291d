"""Metrics port implementations that need no provider: none at all, and a recorder for tests."""

from __future__ import annotations

from dataclasses import dataclass, field


class NoMetrics:
    """The local stack's and the tests' default: metrics go nowhere."""

    def add(self, name: str, value: float, unit: str = "Count") -> None:
        return None

    def flush(self) -> None:
        return None


@dataclass
class RecordedMetrics:
    """Keeps what is added; `flush` moves it to `flushed` (one list per flush), as EMF writes one line."""

    pending: list[tuple[str, float, str]] = field(default_factory=list)
    flushed: list[list[tuple[str, float, str]]] = field(default_factory=list)

    def add(self, name: str, value: float, unit: str = "Count") -> None:
        self.pending.append((name, value, unit))

    def flush(self) -> None:
        if self.pending:
            self.flushed.append(self.pending)
            self.pending = []

    def total(self, name: str) -> float:
        """The sum of `name` over everything added, flushed or not."""
        return sum(v for batch in [*self.flushed, self.pending] for n, v, _ in batch if n == name)
