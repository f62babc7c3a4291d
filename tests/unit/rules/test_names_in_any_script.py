"""Names and places written in any script are read whole by the offline rules, the value lifting and
the graph's sentence shapes (issue 42: "Chloé" was stored as "Chlo", "Zoë" as "Zo", "Gaëlle" as "Ga",
and the graph then held both "Chlo" and "Chloé")."""

from __future__ import annotations

import time

import pytest

from engram.domain.models import Message
from engram.rules import values
from engram.rules.patterns import analyse_message
from engram.rules.relations import facts_to_triples, sentence_triples

# A person's name in several languages and scripts (French, German, Spanish/Portuguese, Polish/Czech,
# Turkish, Icelandic, Greek, Cyrillic, Japanese).
NAMES = [
    "Chloé",
    "Zoë",
    "Gaëlle",
    "Jürgen",
    "Björn",
    "Ángel",
    "João",
    "Łukasz",
    "Jiří",
    "Ayşe",
    "İlkay",
    "Þóra",
    "Νίκος",
    "Дарья",
    "美咲",
]


def facts(text: str) -> list[tuple[str | None, str | None]]:
    return [(f.fact_key, f.fact_value) for clause in analyse_message(text) for f in clause.facts]


@pytest.mark.parametrize("name", NAMES)
def test_a_partner_named_in_any_script_is_read_whole(name: str) -> None:
    assert ("family:girlfriend", name) in facts(f"My girlfriend {name} is lovely")
    assert values.name(f"my boyfriend is called {name}") == name


@pytest.mark.parametrize("name", NAMES)
def test_the_graph_holds_the_whole_name(name: str) -> None:
    found = [f for clause in analyse_message(f"My wife {name} is a nurse.") for f in clause.facts]
    assert {t.destination for t in facts_to_triples(found)} == {name}
    said = sentence_triples([Message(role="user", content=f"My sister {name} lives in Gdańsk.")])
    assert {(t.source, t.relation, t.destination) for t in said} == {
        ("user", "sister", name),
        (name, "lives_in", "Gdańsk"),
    }


@pytest.mark.parametrize("name", ["Łukasz", "Ömer", "Élodie", "Дарья"])
def test_an_introduction_in_any_script_names_the_user(name: str) -> None:
    assert ("name", name) in facts(f"I'm {name}")


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("I moved to Łódź last year", "Łódź"),
        ("we live in Świnoujście now", "Świnoujście"),
        ("the commute from my flat in Île-de-France", "Île-de-France"),
        ("just moved to Θεσσαλονίκη", "Θεσσαλονίκη"),
        ("finally made the move to Екатеринбург", "Екатеринбург"),
        ("I live in Ürümqi", "Ürümqi"),
    ],
)
def test_a_home_in_any_script(clause: str, expected: str) -> None:
    assert values.home_place(clause) == expected


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("I work at Škoda Auto", "Škoda Auto"),
        ("started at Türk Telekom last week", "Türk Telekom"),
        ("I work for Øresund Energi", "Øresund Energi"),
        ("employed by Ελληνικά Πετρέλαια", "Ελληνικά Πετρέλαια"),
    ],
)
def test_an_employer_in_any_script(clause: str, expected: str) -> None:
    assert values.organisation(clause) == expected


def test_lowercase_words_of_other_scripts_are_not_names() -> None:
    assert values.name("my boyfriend ëtait là") is None
    assert values.home_place("I live in Łódź") == "Łódź" and values.home_place("I live in łódź") is None


def test_the_letter_classes_take_linear_time_on_hostile_text() -> None:
    hostile = ["in " + "Łó " * 50_000, "my girlfriend " + "Ñ" * 100_000, "My sister " + "Жа " * 50_000 + "lives in"]
    began = time.process_time()
    for text in hostile:
        values.home_place(text)
        values.name(text)
        analyse_message(text[:2_000])
        sentence_triples([Message(role="user", content=text[:2_000])])
    assert time.process_time() - began < 2.0


@pytest.mark.parametrize(
    ("said", "named"),
    [("Works At", "works_at"), ("travaille à", "travaille_à"), ("работает в", "работает_в"), ("!!", "related_to")],
)
def test_a_relation_named_in_any_script_keeps_its_letters(said: str, named: str) -> None:
    from engram.domain.graph import normalise_relation

    assert normalise_relation(said) == named
