"""Forms outside the catalogue's eight aspects that the offline reader used to miss or misread (issue 42), each
with a look-alike that must not be read so, on the real local embedder: a named third person's change is
theirs, a named person's role ending, a title before a whole name, a change that names no attribute (resolved
against the neighbour whose value is of its kind), and a new value written in lower case."""

from __future__ import annotations

import pytest

from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.state.aspects import AspectReader
from engram.state.attributes import ANY
from engram.state.reading import StatementReading
from tests.unit.state.test_aspects import World


@pytest.fixture(scope="module")
def reader() -> AspectReader:
    return AspectReader(OnnxEmbedder())


@pytest.fixture(scope="module")
def reading(reader: AspectReader) -> StatementReading:
    return StatementReading(reader)


def said(reading: StatementReading, text: str) -> set[tuple[str, str, str, str, bool]]:
    [statements] = reading.statements([text])
    return {(s.subject, s.attribute, s.value, s.polarity, s.single) for s in statements}


@pytest.mark.parametrize(
    ("text", "name", "value"),
    [
        ("Tom moved to Paris", "Tom", "Paris"),
        ("Caroline moved to Austin last spring", "Caroline", "Austin"),
        ("Marcus moved to Leeds so our club found a new coach", "Marcus", "Leeds"),
        ("Дмитрий moved to the Berlin office", "Дмитрий", "Berlin"),
        ("now taking lessons from Νίκος instead, Γιώργος moved back to Thessaloniki", "Γιώργος", "Thessaloniki"),
    ],
)
def test_a_one_word_name_before_a_past_verb_is_their_statement_never_the_users(
    reading: StatementReading, text: str, name: str, value: str
) -> None:
    statements = said(reading, text)
    assert not any(s == "user" and v == value for s, _, v, _, _ in statements), statements
    assert any(s == name and v == value for s, _, v, _, _ in statements), statements


@pytest.mark.parametrize("text", ["Finally moved to Leeds", "Recently moved to Leeds", "Just moved to Leeds"])
def test_an_opening_word_before_a_past_verb_is_no_name(reading: StatementReading, text: str) -> None:
    assert ("user", "home", "Leeds", "asserted", True) in said(reading, text)


def test_a_named_persons_role_ending_ends_that_person_whatever_the_user_holds_them_as(
    reading: StatementReading,
) -> None:
    statements = said(reading, "Kevin left the company last week and nobody has replaced him yet")
    assert ("user", ANY, "Kevin", "ended", True) in statements, statements


@pytest.mark.parametrize(
    "text",
    ["Kevin came over for dinner last week and we played cards", "Kevin is at the company party tonight with everyone"],
)
def test_a_named_person_doing_something_else_ends_nothing(reading: StatementReading, text: str) -> None:
    assert not any(p == "ended" for _, _, _, p, _ in said(reading, text))


def test_a_title_of_another_language_with_its_dot_keeps_the_whole_name(reading: StatementReading) -> None:
    statements = said(reading, "My family doctor is Dr. Ramírez and my dentist is Dra. Guadalupe Torres.")
    assert ("user", "dentist", "Dra. Guadalupe Torres", "asserted", False) in statements, statements
    assert not any(v == "Dra" for _, _, v, _, _ in statements)


def test_a_preposition_after_a_value_is_no_attribute(reading: StatementReading) -> None:
    statements = said(reading, "I now see Dr. Emiliano Cruz in Coyoacán")
    assert not any(a == "in" for _, a, _, _, _ in statements), statements


def test_a_switch_that_names_no_attribute_asserts_its_value_one_at_a_time(reading: StatementReading) -> None:
    assert ("user", ANY, "Garmin Venu 3", "asserted", True) in said(reading, "switched to a Garmin Venu 3")
    assert not any(s == "user" for s, *_ in said(reading, "My father switched to Airtel for better signal"))


@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [("my new phone is a pixel 8", "phone", "pixel 8"), ("my new car is a vw id.3", "car", "vw id.3")],
)
def test_a_new_value_in_lower_case_with_a_model_number_is_read(
    reading: StatementReading, text: str, attribute: str, value: str
) -> None:
    assert ("user", attribute, value, "asserted", True) in said(reading, text)


@pytest.mark.parametrize("text", ["my new job is exhausting", "my new boss is a nightmare", "my new flat is tiny"])
def test_a_lower_case_word_after_new_is_no_value(reading: StatementReading, text: str) -> None:
    assert not any(p == "asserted" and s == "user" for s, _, _, p, _ in said(reading, text))


def test_a_switch_naming_no_attribute_outdates_the_value_of_its_kind_only(reader: AspectReader) -> None:
    world = World(reader)
    world.say("my Apple Watch Series 6 keeps nagging me to stand up", "2025-01-04")
    world.say("my new manager is Priya Raman", "2025-01-05")
    world.say("switched to a Garmin Venu 3, the battery lasts a week", "2025-07-27")
    assert not world.live("Apple Watch")
    assert world.live("Garmin Venu")
    assert world.live("Priya Raman")


def test_a_named_persons_move_leaves_the_users_home(reader: AspectReader) -> None:
    world = World(reader)
    world.say("I live in Manchester, near the canal", "2025-01-04")
    world.say("Caroline moved to Austin last spring", "2025-07-27")
    assert world.live("Manchester")


def test_a_named_persons_leaving_ends_them_in_their_role(reader: AspectReader) -> None:
    world = World(reader)
    world.say("my boss Kevin is micromanaging again, send help", "2025-02-03")
    world.say("Kevin left the company last week and nobody has replaced him yet", "2025-08-12")
    assert not [f for f in world.live("Kevin") if "micromanaging" in f.text or f.kind != "episode"]


@pytest.mark.parametrize(
    ("older", "ending", "value"),
    [
        (
            "Barclays charged me £15 for going a pound overdrawn. unreal",
            "moved my account from Barclays to Monzo",
            "Barclays",
        ),
        ("the auld Corsa's still getting me up the A9, just about", "traded the Corsa in for a Skoda Octavia", "Corsa"),
    ],
)
def test_an_ending_closes_a_value_the_person_named_in_passing(
    reader: AspectReader, older: str, ending: str, value: str
) -> None:
    world = World(reader)
    world.say(older, "2025-01-04")
    world.say(ending, "2025-06-04")
    assert not [f for f in world.live(value) if f.text.startswith(older[:20])]


def test_an_ending_leaves_a_value_someone_else_named(reader: AspectReader) -> None:
    world = World(reader)
    world.say("my sister works at Barclays in Leeds", "2025-01-04")
    world.say("Tom's Corsa broke down again on the A9", "2025-01-05")
    world.say("moved my account from Barclays to Monzo", "2025-06-04")
    world.say("sold the Corsa last week", "2025-06-05")
    assert world.live("my sister works at Barclays")
    assert world.live("Tom's Corsa")


def test_a_definite_description_may_give_its_value_after_a_preposition(reading: StatementReading) -> None:
    statements = said(reading, "The headquarters of Quarry Insurance is now in Girvik.")
    assert ("Quarry Insurance", "headquarters location", "Girvik", "asserted", True) in statements, statements
    assert not said(reading, "The head of marketing is in Leeds this week")  # no name after "of": no subject
    # where someone in a role is, not who holds it
    assert ("Acme", "ceo", "Tokyo") not in {s[:3] for s in said(reading, "The CEO of Acme is in Tokyo this week")}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Дмитрий Волков is now married to Juhani Mäkinen.", ("Дмитрий Волков", "partner", "Juhani Mäkinen", True)),
        ("Ayşe Çelik is now a citizen of South Korea.", ("Ayşe Çelik", "citizen", "South Korea", True)),
        ("Ayşe Çelik is a citizen of France.", ("Ayşe Çelik", "citizen", "France", False)),  # no change told: many
        ("Jane Okafor is the CEO of Kōwhai Foods.", ("Kōwhai Foods", "ceo", "Jane Okafor", True)),  # the one CEO
    ],
)
def test_a_named_subject_in_a_role_of_something_named_is_read(
    reading: StatementReading, text: str, expected: tuple[str, str, str, bool]
) -> None:
    assert {(s, a, v, one) for s, a, v, p, one in said(reading, text) if p == "asserted"} >= {expected}


@pytest.mark.parametrize("text", ["This is a photo of Paris", "It is a copy of Dune", "I'm married to my job lol"])
def test_a_pronoun_or_the_person_is_no_named_subject_in_a_role(reading: StatementReading, text: str) -> None:
    assert not said(reading, text)


def test_a_new_thing_outdates_the_thing_of_its_kind_only(reader: AspectReader) -> None:
    world = World(reader)
    world.say("my Ford Fiesta needs new tyres again", "2025-01-10")
    world.say("my Kindle Paperwhite died on the train", "2025-01-11")
    world.say("my new Toyota Yaris arrived today!!", "2025-06-10")
    assert not world.live("Ford Fiesta")
    assert world.live("Kindle Paperwhite")
    assert world.live("Toyota Yaris")
