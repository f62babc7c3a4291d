"""The key-based reconciler: supersede, retire, skip and add without an LLM."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from engram.domain.models import Event, ExtractionPrompt, Fact, MemoryBank, Message, ReconcileStrategy, Scope
from engram.domain.steps import CandidateFact, Decision
from engram.reconcile.offline import KeyReconciler
from engram.rules.extractor import OfflineExtractor
from engram.rules.keys import signature
from engram.rules.keys_from_text import infer_key

SCOPE = Scope(tenant_id="t1", user_id="u1")
extractor = OfflineExtractor()
reconciler = KeyReconciler()


def fact(text: str, key: str | None = None, value: str | None = None, **extra: Any) -> Fact:
    return Fact(tenant_id="t1", user_id="u1", text=text, fact_key=key, fact_value=value, **extra)


def said(*texts: str) -> list[CandidateFact]:
    facts, _ = extractor.extract([Message(role="user", content=t) for t in texts], ExtractionPrompt.USER, SCOPE)
    return facts


def remembered(*texts: str) -> list[Fact]:
    """Memories as an earlier conversation would have stored them (with keys)."""
    return [fact(c.text, c.fact_key, c.fact_value, memory_bank=c.memory_bank) for c in said(*texts)]


def decide(candidates: list[CandidateFact], existing: list[Fact]) -> list[Decision]:
    decisions, usage = reconciler.reconcile(candidates, existing, ReconcileStrategy.DEFAULT, "")
    assert usage.llm_calls == 0
    return decisions


def events(decisions: list[Decision]) -> list[tuple[Event, str]]:
    return [(d.event, d.text) for d in decisions]


# --- the supersede cases a user relies on -----------------------------------------------------


def test_moving_updates_the_home() -> None:
    existing = remembered("I live in Berlin")
    decisions = decide(said("I moved to Munich"), existing)
    assert len(decisions) == 1
    update = decisions[0]
    assert (update.event, update.memory_id, update.text) == (Event.UPDATE, existing[0].id, "Lives in Munich")
    assert update.old_memory == "Lives in Berlin" and update.fact_index == 0


def test_retiring_a_preference_deletes_it_and_adds_nothing() -> None:
    existing = remembered("I love pizza")
    decisions = decide(said("I don't like pizza anymore"), existing)
    assert [(d.event, d.memory_id) for d in decisions] == [(Event.DELETE, existing[0].id)]


def test_saying_the_same_thing_twice_changes_nothing() -> None:
    existing = remembered("I love pizza")
    decisions = decide(said("I love pizza"), existing)
    assert [(d.event, d.memory_id) for d in decisions] == [(Event.NONE, existing[0].id)]


def test_changing_jobs_updates_the_employer_and_notes_the_old_one() -> None:
    existing = remembered("I work at Google")
    decisions = decide(said("I left Google for Microsoft"), existing)
    assert events(decisions) == [(Event.UPDATE, "Works at Microsoft"), (Event.ADD, "Previously worked at Google")]
    assert decisions[0].memory_id == existing[0].id and decisions[0].old_memory == "Works at Google"
    assert decisions[1].memory_id is None


def test_deleting_a_reminder() -> None:
    existing = remembered("remind me to buy milk", "remind me to call mom tomorrow")
    decisions = decide(said("please delete my reminder about buying milk"), existing)
    assert [(d.event, d.memory_id) for d in decisions] == [(Event.DELETE, existing[0].id)]


def test_a_reminder_with_a_new_time_replaces_the_old_one() -> None:
    existing = remembered("remind me to call mom tomorrow")
    decisions = decide(said("remind me to call mom on Friday"), existing)
    assert events(decisions) == [(Event.UPDATE, "Reminder: call mom on Friday")]


# --- keys and values ---------------------------------------------------------------------------


def test_same_key_and_value_differs_only_in_case() -> None:
    existing = [fact("lives in berlin", "location", "berlin")]
    decisions = decide(said("I live in Berlin"), existing)
    assert [(d.event, d.memory_id) for d in decisions] == [(Event.NONE, existing[0].id)]


@pytest.mark.parametrize(
    ("before", "after", "new_text"),
    [
        ("My name is Alice", "My name is Alicia", "Name is Alicia"),
        ("I work as a nurse", "I'm a software engineer", "Works as a software engineer"),
        ("I'm from Spain", "I grew up in Portugal", "Grew up in Portugal"),
        ("I like pizza", "I hate pizza", "Hates pizza"),
        ("I love pizza", "I like pizza", "Likes pizza"),
        ("my favorite food is sushi", "my favourite food is ramen", "Favorite food is ramen"),
        ("I have a dog", "I have a dog named Max", "Has a dog named Max"),
        ("I have a wife", "my wife's name is Maria", "Has a wife named Maria"),
    ],
)
def test_another_value_for_a_replaceable_key_is_an_update(before: str, after: str, new_text: str) -> None:
    existing = remembered(before)
    decisions = decide(said(after), existing)
    assert [(d.event, d.memory_id, d.text) for d in decisions] == [(Event.UPDATE, existing[0].id, new_text)]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("my sister Anna", "my sister Maria"),
        ("I have a dog named Max", "I have a cat named Luna"),
        ("I'm allergic to peanuts", "I'm allergic to shellfish"),
        ("I have asthma", "I'm diabetic"),
        ("I love pizza", "I love sushi"),
        ("remind me to buy milk", "remind me to call mom"),
    ],
)
def test_multi_valued_families_grow(before: str, after: str) -> None:
    assert [d.event for d in decide(said(after), remembered(before))] == [Event.ADD]


def test_same_allergy_said_differently_is_not_added_twice() -> None:
    existing = remembered("I'm allergic to peanuts")
    assert [d.event for d in decide(said("I have a peanut allergy"), existing)] == [Event.NONE]


def test_quitting_another_company_leaves_the_current_employer() -> None:
    existing = remembered("I work at Microsoft")
    decisions = decide(said("I quit my job at Google"), existing)
    assert events(decisions) == [(Event.ADD, "Previously worked at Google")]


def test_quitting_the_current_employer_deletes_it() -> None:
    existing = remembered("I work at Google")
    decisions = decide(said("I quit my job at Google"), existing)
    assert [(d.event, d.memory_id) for d in decisions if d.event is Event.DELETE] == [(Event.DELETE, existing[0].id)]


def test_retirement_with_nothing_to_retire_decides_nothing() -> None:
    assert decide(said("I don't like pizza anymore"), remembered("I love sushi")) == []


def test_outgrown_allergy_deletes_it() -> None:
    existing = remembered("I'm allergic to cats", "I'm allergic to peanuts")
    decisions = decide(said("I'm no longer allergic to cats"), existing)
    assert [(d.event, d.memory_id) for d in decisions] == [(Event.DELETE, existing[0].id)]


def test_stale_duplicates_of_a_single_valued_key_are_removed() -> None:
    existing = [fact("Lives in Berlin", "location", "Berlin"), fact("Lives in Hamburg", "location", "Hamburg")]
    decisions = decide(said("I moved to Munich"), existing)
    assert [(d.event, d.memory_id) for d in decisions] == [
        (Event.UPDATE, existing[0].id),
        (Event.DELETE, existing[1].id),
    ]


# --- memories without keys (written by the LLM path) --------------------------------------------


def test_keyless_memories_are_read_from_their_text() -> None:
    existing = [fact("Lives in Berlin"), fact("User loves pizza"), fact("Is allergic to peanuts")]
    decisions = decide(said("I moved to Munich. I don't like pizza anymore. I'm allergic to peanuts."), existing)
    assert [(d.event, d.memory_id) for d in decisions] == [
        (Event.UPDATE, existing[0].id),
        (Event.DELETE, existing[1].id),
        (Event.NONE, existing[2].id),
    ]


def test_a_memory_that_something_is_over_is_updated_when_it_is_back() -> None:
    existing = [fact("No longer has asthma"), fact("No longer works at Google")]
    decisions = decide(said("I have asthma. I work at Google."), existing)
    assert [(d.event, d.memory_id, d.text) for d in decisions] == [
        (Event.UPDATE, existing[0].id, "Has asthma"),
        (Event.UPDATE, existing[1].id, "Works at Google"),
    ]
    assert decide(said("I don't have asthma anymore"), existing[:1]) == []


def test_retiring_one_item_of_a_list_keeps_the_others() -> None:
    existing = [fact("Loves pizza and sushi")]
    decisions = decide(said("I don't like pizza anymore"), existing)
    assert [(d.event, d.memory_id, d.text) for d in decisions] == [(Event.UPDATE, existing[0].id, "Loves sushi")]
    assert decisions[0].old_memory == "Loves pizza and sushi"
    assert decisions[0].fact_index is None  # the memory must not take the key "preference:pizza"


def test_retiring_matches_a_longer_phrasing_of_the_same_taste() -> None:
    existing = [fact("Enjoys playing tennis on weekends"), fact("Likes pizza with extra cheese"), fact("Loves jazz")]
    decisions = decide(said("I don't play tennis anymore. I no longer like pizza."), existing)
    assert sorted((d.event, d.memory_id) for d in decisions) == sorted(
        [(Event.DELETE, existing[0].id), (Event.DELETE, existing[1].id)]
    )


def test_retiring_a_taste_spares_memories_that_only_mention_the_word() -> None:
    existing = [fact("Went to a pizza place with colleagues last Friday")]
    assert decide(said("I don't like pizza anymore"), existing) == []


def test_candidates_without_keys_are_added_unless_their_text_is_known() -> None:
    existing = [fact("Had a meeting with John at 3pm")]
    known = CandidateFact(text="had a meeting with John at 3pm.")
    new = CandidateFact(text="Is planning a trip to Japan in May")
    decisions = decide([known, new], existing)
    assert [(d.event, d.memory_id, d.fact_index) for d in decisions] == [
        (Event.NONE, existing[0].id, 0),
        (Event.ADD, None, 1),
    ]


def test_llm_style_candidates_are_keyed_from_their_text() -> None:
    existing = remembered("I live in Berlin")
    decisions = decide([CandidateFact(text="Lives in Munich")], existing)
    assert [(d.event, d.memory_id) for d in decisions] == [(Event.UPDATE, existing[0].id)]


# --- what decisions carry ------------------------------------------------------------------------


def test_add_carries_importance_and_attachments() -> None:
    candidate = CandidateFact(
        text="Allergic to peanuts",
        fact_key="health:peanut allergy",
        fact_value="peanuts",
        memory_bank=MemoryBank.HEALTH,
        importance=0.9,
        attachment_ids=["a1"],
    )
    (decision,) = decide([candidate], [])
    assert (decision.event, decision.importance, decision.attachment_ids, decision.fact_index) == (
        Event.ADD,
        0.9,
        ["a1"],
        0,
    )


def test_none_and_update_keep_the_memorys_attachments_and_add_new_ones() -> None:
    existing = [
        fact("Lives in Berlin", "location", "Berlin", attachment_ids=["a1"], importance=0.95),
        fact("Loves pizza", "preference:pizza", "love", attachment_ids=["a2"]),
    ]
    moved = CandidateFact(
        text="Lives in Munich", fact_key="location", fact_value="Munich", importance=0.8, attachment_ids=["b1"]
    )
    again = CandidateFact(text="Loves pizza", fact_key="preference:pizza", fact_value="love", attachment_ids=["b2"])
    update, none = decide([moved, again], existing)
    assert (update.event, update.attachment_ids, update.importance) == (Event.UPDATE, ["a1", "b1"], 0.95)
    assert (none.event, none.attachment_ids) == (Event.NONE, ["a2", "b2"])


def test_closed_memories_are_ignored() -> None:
    closed = fact("Lives in Berlin", "location", "Berlin", valid_to=datetime(2024, 1, 1, tzinfo=UTC))
    assert events(decide(said("I live in Berlin"), [closed])) == [(Event.ADD, "Lives in Berlin")]


def test_one_verdict_per_memory_and_indexes_point_at_the_original_candidates() -> None:
    existing = remembered("I live in Berlin")
    candidates = [
        *said("I love sushi"),
        CandidateFact(text="Lives in Hamburg", fact_key="location", fact_value="Hamburg"),
        CandidateFact(text="Lives in Munich", fact_key="location", fact_value="Munich"),
    ]
    decisions = decide(candidates, existing)
    assert [(d.event, d.text, d.fact_index) for d in decisions] == [
        (Event.ADD, "Loves sushi", 0),
        (Event.UPDATE, "Lives in Munich", 2),
    ]


def test_both_strategies_decide_alike() -> None:
    existing = remembered("I live in Berlin", "I love pizza")
    candidates = said("I moved to Munich. I don't like pizza anymore. I have a dog named Max.")
    default, _ = reconciler.reconcile(candidates, existing, ReconcileStrategy.DEFAULT, "")
    relevance, _ = reconciler.reconcile(candidates, existing, ReconcileStrategy.RELEVANCE, "")
    assert default == relevance
    assert [d.event for d in default] == [Event.UPDATE, Event.DELETE, Event.ADD]


# --- the extractor's texts read back to their keys ---------------------------------------------


@pytest.mark.parametrize(
    "statement",
    [
        "My name is Alice",
        "call me Al",
        "I live in Berlin",
        "I'm from Spain",
        "I grew up in Madrid",
        "I work at Google",
        "I'm a software engineer",
        "I love pizza",
        "I enjoy jazz",
        "I hate olives",
        "I can't stand olives",
        "I'm a big fan of jazz",
        "I prefer tea over coffee",
        "my favorite food is sushi",
        "I have a sister named Anna",
        "my wife's name is Maria",
        "I have a dog named Max",
        "My mom's name is Linda",
        "I'm allergic to peanuts",
        "I have a peanut allergy",
        "I have asthma",
        "I'm lactose intolerant",
        "remind me to call mom tomorrow",
        "I don't like pizza anymore",
        "I'm vegetarian",
        "I'm German",
        "I don't eat pork",
        "I quit my job at Google",
        "I have a dog",
        "I moved from Berlin to Munich",
        "I'm a student at MIT",
        "I'm married to Tom",
        "My birthday is March 3rd",
        "I'm 34",
        "I'm single",
        "I'm no longer allergic to cats",
        "please delete my reminder about buying milk",
        "I don't eat meat anymore",
        "I'm self-employed",
        "I'm retired",
        "I work as a nurse",
    ],
)
def test_fact_texts_imply_their_keys(statement: str) -> None:
    """A memory stored without its key (or an LLM writing the same text) reconciles the same way."""
    for candidate in said(statement):
        assert candidate.fact_key is not None
        keyed = infer_key(candidate.text)
        assert keyed is not None, candidate.text
        assert signature(keyed.key) == signature(candidate.fact_key)
        assert keyed.negated == candidate.negated


@pytest.mark.parametrize("text", ["Lives in Berlin with his wife", "Had a meeting with John", "Visited Rome in May"])
def test_texts_that_say_more_than_a_key_get_none(text: str) -> None:
    assert infer_key(text) is None
