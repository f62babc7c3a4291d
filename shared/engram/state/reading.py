"""The statements a text makes, read offline by meaning (the StatementReader port, domain/statements.py).

Today it reads the catalogue's attributes of the person (state/aspects.py): each reading of an aspect is a
statement of the user asserting its value, one value at a time where the catalogue says so."""

from __future__ import annotations

from collections.abc import Sequence

from engram.domain.statements import USER, Statement
from engram.state.aspects import AspectReader


class StatementReading:
    def __init__(self, aspects: AspectReader) -> None:
        self.aspects = aspects

    def statements(self, texts: Sequence[str]) -> list[tuple[Statement, ...]]:
        read: list[tuple[Statement, ...]] = []
        for readings in self.aspects.read(texts):
            said = {(r.aspect.name, r.value): r.aspect.single for r in readings}  # one statement per value
            read.append(
                tuple(Statement(subject=USER, attribute=a, value=v, single=single) for (a, v), single in said.items())
            )
        return read
