"""How a sentence is cut into clauses (engram/text/clauses.py), which the rules, the statement reader and the
policy screen all read: a comma inside a number is part of it."""

from __future__ import annotations

import pytest

from engram.text.clauses import split_clauses


@pytest.mark.parametrize(
    ("sentence", "expected"),
    [
        ("I earn 30,000 a year, which is not much", ["I earn 30,000 a year, which is not much"]),
        ("we owe 1,250,000 on the house", ["we owe 1,250,000 on the house"]),
        ("Hi, I moved to Leeds", ["Hi", "I moved to Leeds"]),
        ("I moved in 2019, 2020 was hard", ["I moved in 2019, 2020 was hard"]),
    ],
)
def test_a_comma_inside_a_number_splits_nothing_and_the_number_is_kept_as_written(
    sentence: str, expected: list[str]
) -> None:
    assert split_clauses(sentence) == expected
