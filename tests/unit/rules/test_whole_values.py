"""A value is a whole name, never its first word, and never with the time it was said glued on
(issue 42: "I moved to York in May." became the fact `Lives in York in May`; "Soins Alpins" became
"Works at Soins")."""

from __future__ import annotations

import pytest

from engram.rules import values
from engram.rules.patterns import analyse_message


def facts(text: str) -> set[tuple[str | None, str | None]]:
    return {(f.fact_key, f.fact_value) for clause in analyse_message(text) for f in clause.facts}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I moved to York in May.", ("location", "York")),
        ("We relocated to Porto in early June", ("location", "Porto")),
        ("I moved to Cardiff last March", ("location", "Cardiff")),
        ("I started at Soins Alpins in September", ("employer", "Soins Alpins")),
        ("I'm a carer with Soins Alpins in Sion", ("employer", "Soins Alpins")),
        ("I work at Soins Alpins since January", ("employer", "Soins Alpins")),
        ("my girlfriend Ana Lúcia is great", ("family:girlfriend", "Ana Lúcia")),
    ],
)
def test_the_rules_keep_the_whole_name_and_only_the_name(text: str, expected: tuple[str, str]) -> None:
    found = facts(text)
    assert expected in found, found
    assert all(v is None or " in " not in v for _, v in found), found


@pytest.mark.parametrize(
    ("lift", "clause", "expected"),
    [
        (values.name, "my girlfriend Ana Lúcia is great", "Ana Lúcia"),
        (values.name, "I'm seeing someone new, his name is Jean-Luc Picard", "Jean-Luc Picard"),
        (values.name, "my wife Sofia's sister lives in Madrid", "Sofia"),
        (values.organisation, "new job at Soins Alpins in Sion", "Soins Alpins"),
        (values.organisation, "I'm with Banco do Brasil now", "Banco do Brasil"),
        (values.home_place, "I moved to York in May", "York"),
    ],
)
def test_the_lifted_value_is_the_whole_name(lift: object, clause: str, expected: str) -> None:
    assert lift(clause) == expected  # type: ignore[operator]
