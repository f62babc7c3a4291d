"""Statements of any attribute, of anyone, read offline by meaning (state/reading.py, open_reading.py,
polarity.py, attributes.py), on the real local embedder: the forms people give a value in, endings that name
no new value, and what must not be read as a change."""

from __future__ import annotations

import pytest

from engram.adapters.onnx.embedder import OnnxEmbedder
from engram.domain.statements import USER
from engram.state.aspects import AspectReader
from engram.state.attributes import ANY
from engram.state.open_reading import whose_value
from engram.state.reading import StatementReading


@pytest.fixture(scope="module")
def reading() -> StatementReading:
    return StatementReading(AspectReader(OnnxEmbedder()))


def said(reading: StatementReading, text: str) -> set[tuple[str, str, str, str, bool]]:
    [statements] = reading.statements([text])
    return {(s.subject, s.attribute, s.value, s.polarity, s.single) for s in statements}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my new phone is a Pixel 9", ("user", "phone", "Pixel 9", "asserted", True)),
        ("my mobile is now an iPhone 15", ("user", "phone", "iPhone 15", "asserted", True)),  # one attribute
        ("got a new bike: a Brompton", ("user", "bike", "Brompton", "asserted", True)),
        ("I now go to Riverside Gym", ("user", "gym", "Riverside Gym", "asserted", True)),
        ("switched gyms to PureGym", ("user", "gym", "PureGym", "asserted", True)),
        ("I changed my dentist to Dr Shah", ("user", "dentist", "Dr Shah", "asserted", True)),
        ("Our landlord is now Mr Okafor", ("user", "landlord", "Mr Okafor", "asserted", True)),
        ("my daughter Ines's school is St Mary's", ("my daughter Ines", "school", "St Mary's", "asserted", False)),
        ("Tom's coach is Marta Ruiz", ("Tom", "coach", "Marta Ruiz", "asserted", False)),
        (
            "The capital of Australia is Canberra",
            ("Australia", "capital", "Canberra", "asserted", True),
        ),  # the one capital
        ("The owners of Café Nube are Ana Ruiz", ("Café Nube", "owners", "Ana Ruiz", "asserted", False)),
        ("my dentist is Dr Patel", ("user", "dentist", "Dr Patel", "asserted", False)),  # no change told: many
        ("my girlfriend is Ana", ("user", "partner", "Ana", "asserted", True)),  # the catalogue's, by its nouns
    ],
)
def test_a_form_gives_subject_attribute_whole_value_and_cardinality(
    reading: StatementReading, text: str, expected: tuple[str, str, str, str, bool]
) -> None:
    assert expected in said(reading, text)


def test_a_change_naming_the_old_value_ends_it_even_without_an_attribute(reading: StatementReading) -> None:
    assert ("user", ANY, "EE", "ended", True) in said(reading, "I switched from EE to Vodafone")
    both = said(reading, "I switched my broadband from BT to Sky")
    assert ("user", "broadband", "Sky", "asserted", True) in both
    assert ("user", "broadband", "BT", "ended", True) in both
    assert not any(v == "BT" and p == "asserted" for _, _, v, p, _ in both)


@pytest.mark.parametrize(
    ("text", "subject", "attribute", "value"),
    [
        ("we broke up", "user", "partner", ANY),
        ("I left Google", "user", "employer", "Google"),
        ("Miso died", "user", "pets", "Miso"),
        ("handed in my notice", "user", "employer", ANY),
        ("gave the bike away", "user", "bike", ANY),
        ("closed that account", "user", "bank account", ANY),
        ("he retired", "he", "job", ANY),
        ("stopped smoking", "user", "smoking", ANY),
        ("cancelled my Netflix", "user", "subscription", "Netflix"),
    ],
)
def test_an_ending_with_no_new_value_is_read_by_meaning(
    reading: StatementReading, text: str, subject: str, attribute: str, value: str
) -> None:
    ended = {(s, a, v) for s, a, v, p, _ in said(reading, text) if p == "ended"}
    assert (subject, attribute, value) in ended


@pytest.mark.parametrize(
    "text",
    [
        "I might switch to Octopus",
        "I'm thinking of leaving Google",
        "I didn't leave Google",
        "my old phone was a Nokia",
        "I love my new job",
        "my dad died last year",
        "my sister quit her job",
        "Tom came over for dinner",
        "I met Sarah at the Tate",
        "we watched Dune last night",
    ],
)
def test_hedges_denials_the_past_and_other_people_assert_or_end_nothing_of_the_person(
    reading: StatementReading, text: str
) -> None:
    changes = {(s, p) for s, _, _, p, _ in said(reading, text) if p in ("asserted", "ended", "denied")}
    assert ("user", "asserted") not in changes and ("user", "ended") not in changes, changes


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a provider or service, with the attribute named after it, or none ("provider")
        ("we're with Octopus for our energy", ("user", "electricity", "Octopus", "asserted", True)),
        ("I'm on Three for my broadband", ("user", "broadband", "Three", "asserted", True)),
        ("I'm with Starling now", ("user", "provider", "Starling", "asserted", False)),
        ("on Lyca, the data is fine", ("user", "provider", "Lyca", "asserted", False)),
        ("my savings account is with Nationwide", ("user", "savings account", "Nationwide", "asserted", False)),
        ("I bank with Revolut these days", ("user", "bank", "Revolut", "asserted", False)),
        # the attribute's noun before the value, as people introduce someone in a role
        ("our plumber Mr Haddad came round again", ("user", "plumber", "Mr Haddad", "asserted", False)),
        (
            "My solicitor, Priya Nair of Nair Legal, sent the papers",
            ("user", "solicitor", "Priya Nair of Nair Legal", "asserted", False),
        ),
        ("we hired a new nanny, Gosia", ("user", "nanny", "Gosia", "asserted", True)),
        ("my new physio is dr Okonkwo", ("user", "physio", "Okonkwo", "asserted", True)),  # a title in lower case
        ("our new vet is a practice called Paws Corner", ("user", "vet", "Paws Corner", "asserted", True)),
        ("Dr Ruiz is my new dentist", ("user", "dentist", "Dr Ruiz", "asserted", True)),  # the value first
        ("Halima is our childminder", ("user", "childminder", "Halima", "asserted", False)),
        ("Marco is my ex now", ("user", "partner", "Marco", "ended", True)),
        ("Siobhán is my ex-girlfriend", ("user", "partner", "Siobhán", "ended", True)),
        # a thing of one's own, named by its make and model
        ("my Vespa Primavera needs a service", ("user", "thing", "Vespa Primavera", "asserted", False)),
    ],
)
def test_providers_roles_and_named_things_are_read(
    reading: StatementReading, text: str, expected: tuple[str, str, str, str, bool]
) -> None:
    assert expected in said(reading, text)


@pytest.mark.parametrize(
    ("text", "old", "new"),
    [
        ("ditched the Kindle for a Kobo Libra", "Kindle", "Kobo Libra"),
        ("traded my Yaris in for a Mazda CX-5", "Yaris", "Mazda CX-5"),
        ("replaced the Dell with a Framework laptop", "Dell", "Framework"),
        ("I left Fitness First for Nuffield Health", "Fitness First", "Nuffield Health"),
        ("moved my pension from Aviva to Vanguard", "Aviva", "Vanguard"),
        ("switched from squash to badminton", "squash", "badminton"),  # values in lower case, told by the form
        ("I switched from Lidl to aldi", "Lidl", "aldi"),
    ],
)
def test_a_swap_ends_the_old_value(reading: StatementReading, text: str, old: str, new: str) -> None:
    statements = said(reading, text)
    assert ("user", ANY, old, "ended", True) in statements or any(
        s == "user" and v == old and p == "ended" for s, _, v, p, _ in statements
    ), statements
    assert not any(v == old and p == "asserted" for _, _, v, p, _ in statements)


@pytest.mark.parametrize(
    "text",
    [
        "I'm on Monday shifts this week",
        "we were with Tom at the pub",
        "my Monday meeting ran late",
        "my sister's landlord Mr Grey is awful",
        "my brother Tomasz is visiting",
        "Tomasz is my brother",
        "Paris is my favourite city to visit in spring",
        "I might move my ISA from Aviva to Vanguard",
    ],
)
def test_new_forms_assert_nothing_false_of_the_person(reading: StatementReading, text: str) -> None:
    statements = said(reading, text)
    assert not any(s == "user" and p == "asserted" for s, _, _, p, _ in statements), statements


def test_names_in_any_script_are_whole_values(reading: StatementReading) -> None:
    for name in ("Zoë Brennan", "Łukasz Nowak", "Ayşe Demir", "Олег Петров", "Ελένη", "Begoña Ruiz"):
        assert ("user", "coach", name, "asserted", True) in said(reading, f"my new coach is {name}"), name


@pytest.mark.parametrize(
    ("text", "attribute", "value"),
    [
        ("Has a girlfriend named Ana", "partner", "Ana"),
        ("Has a cat named Miso", "pets", "Miso"),
        ("Works at Google", "employer", "Google"),
        ("Lives in York", "home", "York"),
    ],
)
def test_a_fact_in_its_stored_wording_asserts_its_value(
    reading: StatementReading, text: str, attribute: str, value: str
) -> None:
    """A fact is stored as "Has a girlfriend named Ana": it holds the value, it does not end it (a break-up
    told later must find it asserted to close it)."""
    assert ("user", attribute, value, "asserted") in {s[:4] for s in said(reading, text)}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Ayşe Şahin now works for Téléphérique Pharma.", ("Ayşe Şahin", "employer", "Téléphérique Pharma")),
        ("Tom lives in Paris", ("Tom", "home", "Paris")),
        ("Norrland Freight is headquartered in Oslo", ("Norrland Freight", "home", "Oslo")),
    ],
)
def test_a_named_subject_in_the_third_person_is_theirs(
    reading: StatementReading, text: str, expected: tuple[str, str, str]
) -> None:
    """What is said of someone named is their statement, read as they would say it of themselves; it is not the
    user's (a later "Tom moved to Lyon" outdates Tom's home, never the user's)."""
    stated = {s[:3] for s in said(reading, text)}
    assert expected in stated
    assert not any(subject == "user" for subject, _, _ in stated)


@pytest.mark.parametrize("text", ["Finally moved to Leeds", "Tom might move to Lyon", "Today I moved to Leeds"])
def test_a_sentence_opening_word_hedge_or_the_user_is_no_named_subject(reading: StatementReading, text: str) -> None:
    assert not any(s[0] not in ("user",) for s in said(reading, text))


def test_whose_a_value_is_by_the_words_before_it() -> None:
    """What a model gives the person is checked against whose the words make it (pipeline/llm_extractor.stamped)."""
    assert whose_value("my brother just became a pilot with Ryanair, so jealous", "pilot") == "my brother"
    assert whose_value("My brother-in-law has taken a new Mahindra Thar, very fancy", "Mahindra Thar") != USER
    assert whose_value("Kofi has also started karate, he loves it", "karate") == "Kofi"
    assert whose_value("my sister quit and joined Deloitte", "Deloitte") == "my sister"
    assert whose_value("I'm a pharmacist at Boots", "Boots") == USER
    assert whose_value("my daughter and I moved to Leeds", "Leeds") == USER
    assert whose_value("Tom and I broke up", "Tom") == USER
    # the person's wherever any clause naming it is; nothing known where the words do not name it
    assert whose_value("my brother drives a Golf. I drive a Golf too", "Golf") == USER
    assert whose_value("I moved to York", "the city of York") is None
