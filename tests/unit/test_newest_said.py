"""The later of two statements on one subject ranks first, unless the question asks about an earlier time;
statements on other subjects keep their places and nothing leaves the ranking."""

from __future__ import annotations

from datetime import datetime

from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.models import Fact
from engram.services.newest_said import newest_first, same_subject
from tests.unit.test_search_views import DIMS, remember, service
from tests.unit.test_time_search import at, texts

MAY, JUNE = at(2023, 5, 2), at(2023, 6, 20)


def fact(text: str, said: datetime) -> Fact:
    return Fact(tenant_id="acme", user_id="alice", text=text, valid_from=said)


OLDER = fact("I've tried three different Korean restaurants in my city recently", MAY)
NEWER = fact("Tried four Korean restaurants so far in the city", JUNE)
OTHER = fact("Korean food is spicy, my city has many places", at(2023, 6, 1))
QUESTION = "How many Korean restaurants have I tried in my city?"


def test_the_later_statement_on_a_subject_moves_just_above_the_earlier_one() -> None:
    ranked = newest_first(QUESTION, [(OLDER, 0.9), (OTHER, 0.89), (NEWER, 0.88)])
    assert [f.text for f, _ in ranked] == [NEWER.text, OLDER.text, OTHER.text]
    assert [s for _, s in ranked] == [0.9, 0.9, 0.89]  # the moved hit shows the score it ranks at


def test_a_later_statement_far_below_in_relevance_stays_where_it_is() -> None:
    hits = [(OLDER, 0.9), (OTHER, 0.8), (NEWER, 0.7)]
    assert newest_first(QUESTION, hits) == hits


def test_a_question_about_an_earlier_time_keeps_the_order() -> None:
    hits = [(OLDER, 0.9), (OTHER, 0.89), (NEWER, 0.88)]
    for question in (
        "How many Korean restaurants had I tried in my city before June?",
        "What was the first Korean restaurant I tried in my city?",
    ):
        assert [f for f, _ in newest_first(question, hits)] == [OLDER, OTHER, NEWER]


def test_statements_on_other_subjects_keep_their_places() -> None:
    dog = fact("My dog tried the new restaurant food", JUNE)
    hits = [(OLDER, 0.9), (OTHER, 0.89), (dog, 0.88)]
    assert newest_first(QUESTION, hits) == hits


def test_same_subject_needs_two_shared_terms_that_are_most_of_what_either_holds() -> None:
    assert same_subject(frozenset({"korean", "restaur", "tri"}), frozenset({"korean", "restaur", "tri", "citi"}))
    assert not same_subject(frozenset({"korean"}), frozenset({"korean"}))
    assert not same_subject(frozenset({"korean", "restaur"}), frozenset({"korean", "citi", "tri", "restaur", "mani"}))


def test_search_answers_with_the_later_statement_first() -> None:
    memories = service(EmbeddedIndex(None, DIMS))
    remember(memories, "acme", "alice", OLDER.text, valid_from=MAY)
    remember(memories, "acme", "alice", NEWER.text, valid_from=JUNE)
    remember(memories, "acme", "alice", "Went hiking near the lake after work", valid_from=at(2023, 6, 5))
    found = texts(memories, QUESTION)
    assert found.index(NEWER.text) < found.index(OLDER.text)
    assert len(found) == 3
