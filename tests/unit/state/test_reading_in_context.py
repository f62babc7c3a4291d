"""What the offline reader takes from a clause's context (issue 42): the words that hedge, deny or tell the past
apply to a value only where they are said of it, a later clause or comma part with no subject of its own is its
sentence's, an opening word is no name, a place named by its kind is a value of that kind, and the people and
roles said without "my" are read. Each with a look-alike that must not be read so, on the real local embedder."""

from __future__ import annotations

import pytest

from engram.domain.statements import same_subject
from engram.state.attributes import ANY
from engram.state.open_reading import names_in
from engram.state.reading import StatementReading
from tests.unit.state.test_open_statement_reading import reading, said

__all__ = ["reading"]  # the module's fixture: one reader, one model load


@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [
        ("our landlord Mr Papadopoulos never fixes anything", "landlord", "Mr Papadopoulos"),
        ("our landlord Gary still hasn't sorted the damp", "landlord", "Gary"),
        ("the flat was sold, the new landlord is a company called Grainger", "landlord", "Grainger"),
    ],
)
def test_a_denial_or_the_past_said_of_something_else_leaves_the_value_asserted(
    reading: StatementReading, text: str, attribute: str, value: str
) -> None:
    statements = said(reading, text)
    assert any((a, v, p) == (attribute, value, "asserted") for _, a, v, p, _ in statements), statements


@pytest.mark.parametrize(
    "text", ["my landlord is not Gary", "my old landlord was Gary", "I'm not with Vodafone any more"]
)
def test_a_cue_said_of_the_value_still_applies(reading: StatementReading, text: str) -> None:
    statements = said(reading, text)
    assert not any(p == "asserted" for _, _, _, p, _ in statements), statements


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("we're off-grid now with the solar and battery, closed the British Gas account for good", "British Gas"),
        ("left the Harriers, joined Portobello Running Club, a wee bit friendlier", "Harriers"),
        ("Sold the Golf. In Berlin I don't need a car at all", "Golf"),
    ],
)
def test_an_ending_in_a_later_part_of_a_sentence_is_the_persons(
    reading: StatementReading, text: str, value: str
) -> None:
    statements = said(reading, text)
    assert any(s == "user" and v == value and p == "ended" for s, _, v, p, _ in statements), statements


def test_an_ending_in_a_later_part_is_whoever_leads_the_sentence(reading: StatementReading) -> None:
    statements = said(reading, "my sister is off-grid now, closed the British Gas account for good")
    assert not any(s == "user" and p == "ended" for s, _, _, p, _ in statements), statements


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Finally got rid of Telekom", "Telekom"),
        ("Sold the Golf", "Golf"),
        ("Miso died", "Miso"),
        ("Abeg I don close that GTBank account", "GTBank"),  # what leads "I" is no value
    ],
)
def test_the_word_that_opens_a_sentence_is_no_name_unless_it_is_the_value(text: str, value: str) -> None:
    assert names_in(text) == value


def test_a_childs_school_named_by_its_kind_changes_when_they_start_at_another(reading: StatementReading) -> None:
    before = said(reading, "my daughter Isla is in year 2 at St Mary's Primary")
    after = said(reading, "Isla started at Oakwood Academy this week, new uniform and everything")
    assert ("my daughter Isla", "school", "St Mary's Primary", "asserted", False) in before, before
    assert ("Isla", "school", "Oakwood Academy", "asserted", True) in after, after
    assert same_subject("my daughter Isla", "Isla") and not same_subject("my daughter Isla", "my daughter Eva")
    assert not any(a == "school" for _, a, _, _, _ in said(reading, "I go to Paris every summer"))


@pytest.mark.parametrize(
    ("text", "subject", "attribute", "value", "single"),
    [
        ("new dentist is Dr. Alvarez, she's closer to my new office", "user", "dentist", "Dr. Alvarez", True),
        ("Working with a personal trainer, Sade, three times a week", "user", "personal trainer", "Sade", False),
        ("Mia has a new piano teacher this year, Mr Oduya from the centre", "Mia", "piano teacher", "Mr Oduya", True),
        ("I go to Selfit gym 3x a week, leg day is sacred", "user", "gym", "Selfit", False),
        ("switched GP from Dr Patel to Dr Morrison at the Westfield surgery", "user", "gp", "Dr Morrison", True),
        ("we shifted Aarav from Delhi Public School to Kendriya Vidyalaya", "Aarav", ANY, "Kendriya Vidyalaya", True),
    ],
)
def test_roles_and_places_said_without_my_are_read(
    reading: StatementReading, text: str, subject: str, attribute: str, value: str, single: bool
) -> None:
    statements = said(reading, text)
    assert (subject, attribute, value, "asserted", single) in statements, statements


def test_an_account_held_is_no_ending(reading: StatementReading) -> None:
    statements = said(reading, "my account is at Itaú since forever, my dad opened it for me")
    assert not any(p == "ended" for _, _, _, p, _ in statements), statements


@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [
        ("Home internet is Zuku, 10 Mbps", "broadband", "Zuku"),
        ("Car insurance is with Admiral", "car insurance", "Admiral"),
    ],
)
def test_an_attribute_of_several_words_opening_a_sentence_is_the_persons(
    reading: StatementReading, text: str, attribute: str, value: str
) -> None:
    assert ("user", attribute, value, "asserted", attribute == "broadband") in said(reading, text)


def test_one_word_opening_a_sentence_may_be_a_name_and_is_no_attribute(reading: StatementReading) -> None:
    assert not any(v == "Sarah" for _, _, v, _, _ in said(reading, "Tom is with Sarah now"))


def test_an_attribute_the_words_name_outside_the_catalogue_is_what_the_value_is(reading: StatementReading) -> None:
    statements = said(reading, "my salary account is with HDFC Bank yaar")
    assert ("user", "salary account", "HDFC Bank", "asserted", False) in statements, statements
    assert not any(a == "employer" for _, a, _, _, _ in statements), statements


def test_a_number_ported_ends_the_old_network(reading: StatementReading) -> None:
    statements = said(reading, "ported my number from Airtel to Jio last week")
    assert ("user", "number", "Airtel", "ended", True) in statements, statements
    assert ("user", "number", "Jio", "asserted", True) in statements, statements


def test_the_nearest_subject_says_whose_a_form_is(reading: StatementReading) -> None:
    statements = said(reading, "Marcus moved to Leeds so our club found a new coach, Ifeoma")
    assert ("user", "coach", "Ifeoma", "asserted", True) in statements, statements
    assert ("my brother", "phone", "Pixel 9", "asserted", True) in said(
        reading, "my brother just got a new phone: Pixel 9"
    )


@pytest.mark.parametrize(
    ("text", "subject", "value"),
    [
        ("no more Gary the landlord!! we got the keys to our own place", "user", "Gary"),
        ("we don't have Netflix any more", "user", "Netflix"),
        ("Maria doesn't live in Leeds any more", "Maria", "Leeds"),
        ("he doesn't work at Shell any more", "he", "Shell"),
    ],
)
def test_an_ending_the_words_say_of_a_named_value_ends_it(
    reading: StatementReading, text: str, subject: str, value: str
) -> None:
    statements = said(reading, text)
    assert (subject, ANY, value, "ended") in [(s, a, v, p) for s, a, v, p, _ in statements], statements


@pytest.mark.parametrize(
    "text",
    [
        "No more wahala with transfers",  # its "No" is no name
        "My sister Ana no longer works at Google",  # whose ending, and of what, is not read so: nothing
        "no more than two coffees a day with Maria",
        "I might not see Dr Patel any more",
    ],
)
def test_words_of_ending_without_a_value_they_end_end_nothing(reading: StatementReading, text: str) -> None:
    statements = said(reading, text)
    assert not [s for s in statements if s[2] != ANY and s[3] == "ended" and s[1] == ANY], statements


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Maya and I split up in june. I'm seeing someone new, his name is Daniel", "Maya"),
        ("Chloé and I broke up. it's fine", "Chloé"),
        ("Sam and I are not together any more", "Sam"),
    ],
)
def test_an_ending_done_with_someone_named_first_ends_them(reading: StatementReading, text: str, value: str) -> None:
    statements = said(reading, text)
    ended = [(s, v) for s, _, v, p, _ in statements if p == "ended"]
    assert ended == [("user", value)], statements


def test_something_done_with_someone_named_first_ends_nothing(reading: StatementReading) -> None:
    statements = said(reading, "Tom and I went to Leeds for the weekend")
    assert not [s for s in statements if s[3] == "ended"], statements
