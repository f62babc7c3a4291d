"""Value lifting once a clause's aspect is known (rules/values.py): what each aspect holds, and
nothing when the clause gives no clear value."""

from __future__ import annotations

import time

import pytest

from engram.rules import values


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("ugh the commute from my flat in Leeds is killing me", "Leeds"),
        ("just moved to Berlin", "Berlin"),
        ("Moved down to Bristol last month", "Bristol"),
        ("we live in Rio de Janeiro now", "Rio de Janeiro"),
        ("finally made the move to São Paulo", "São Paulo"),
        ("the commute to Zurich is brutal", None),  # where they commute to is not where they live
        ("my place has the best view", None),
        ("moved to lisbon", "Lisbon"),  # a known place in lower case
    ],
)
def test_home_place(clause: str, expected: str | None) -> None:
    assert values.home_place(clause) == expected


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("started at Siemens last week", "Siemens"),
        ("employed by Nestlé in Vevey", "Nestlé"),
        ("I'm at a tiny startup called Nimbus now", "Nimbus"),
        ("Heineken hired me", "Heineken"),
        ("I work for Procter & Gamble", "Procter & Gamble"),
        ("I work at home on Mondays", None),
        ("moved to Aberdeen", None),  # a place after "to" is no employer
    ],
)
def test_organisation(clause: str, expected: str | None) -> None:
    assert values.organisation(clause) == expected


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("we adopted another cat, called Miso", "Miso"),
        ("my boyfriend Tom hates it", "Tom"),
        ("his name is Daniel", "Daniel"),
        ("my boyfriend hates it", None),
        ("my wife Sofia's sister lives in Madrid", "Sofia"),  # the name, not its possessive
    ],
)
def test_name(clause: str, expected: str | None) -> None:
    assert values.name(clause) == expected


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("peanuts make me swell up like a balloon", "peanuts"),
        ("gluten makes me really sick", "gluten"),
        ("I'm allergic to shellfish btw", "shellfish"),
        ("a cashew allergy", "cashew"),
        ("I love peanuts", None),
    ],
)
def test_allergen(clause: str, expected: str | None) -> None:
    assert values.allergen(clause) == expected


def test_job_title_needs_a_known_occupation() -> None:
    assert values.job_title("I'm a paramedic now") == "paramedic"
    assert values.job_title("I work as a software developer") == "software developer"
    assert values.job_title("I'm a morning person") is None


def test_a_trip_needs_a_travel_word() -> None:
    assert values.trip_place("we're finally doing the Japan thing in April") == "Japan"
    assert values.trip_place("booked flights to Osaka this morning") == "Osaka"
    assert values.trip_place("my place in Porto has the best view") is None


@pytest.mark.parametrize(
    ("lift", "clause", "expected"),
    [
        (values.product, "got a new phone, a Pixel 9, so much faster", "Pixel 9"),
        (values.product, "swapped my iPhone for a Pixel 9", "Pixel 9"),
        (values.product, "got a Pixel 9 and a Galaxy S24", None),  # two names, none clearly the new one
        (values.product, "went to the Apple store to look at the iPhone 16", None),  # not had
        (values.product, "I joined a group last week and have loved it (12 May 2023)", None),  # a date
        (values.person, "my new manager is Priya, she seems great", "Priya"),
        (values.person, "Dr Okafor is my GP now", "Dr Okafor"),
        (values.person, "my manager is really nice", None),
        (values.provider, "switched to Octopus for electricity", "Octopus"),
        (values.provider, "we changed our broadband to Virgin Media", "Virgin Media"),
        (values.provider, "switched to a cheaper tariff", None),
    ],
)
def test_products_people_in_roles_and_providers(lift: object, clause: str, expected: str | None) -> None:
    assert lift(clause) == expected  # type: ignore[operator]


LIFTS = [values.home_place, values.organisation, values.name, values.allergen, values.product, values.person]


@pytest.mark.parametrize("lift", [*LIFTS, values.provider])
def test_lifting_takes_linear_time_on_hostile_text(lift: object) -> None:
    hostile = [
        "in " + "Aa " * 50_000,
        "at " + "Big " * 50_000 + "hired",
        "called " + "X & " * 50_000,
        "got " + "Pixel 9 " * 50_000,
        "my manager is " + "Big " * 50_000 + "is my manager",
        "switched our " + "a " * 50_000 + "to Octopus",
    ]
    began = time.process_time()
    for text in hostile:
        lift(text)  # type: ignore[operator]
    assert time.process_time() - began < 2.0  # quadratic would take minutes on these lengths


@pytest.mark.parametrize(
    "clause",
    [
        "I get around the city on my Vespa Primavera",
        "I go to Zdrofit near the office",
        "we moved into the new flat",
        "I live near the station",
    ],
)
def test_a_word_of_a_place_of_several_words_is_no_home(clause: str) -> None:
    assert values.home_place(clause) not in ("The", "New", "the", "new")


@pytest.mark.parametrize(
    ("clause", "home"), [("we live in new york now", "New York"), ("moved to hong kong", "Hong Kong")]
)
def test_a_place_of_several_words_is_one_home(clause: str, home: str) -> None:
    assert values.home_place(clause) == home
