"""A person's requests about their own memory, read from what they say (safety/requests.py)."""

from __future__ import annotations

import pytest

from engram.safety.requests import RequestKind, read_requests, same_topic

DONT, FORGET, ALLOW = RequestKind.DONT_REMEMBER, RequestKind.FORGET, RequestKind.ALLOW


@pytest.mark.parametrize(
    ("text", "kind", "topic"),
    [
        ("Please never store anything about my finances.", DONT, "finances"),
        ("Don't remember anything about my kids", DONT, "kids"),
        ("ok so please don't save anything about my salary", DONT, "salary"),
        ("I don't want you to keep notes about my divorce", DONT, "divorce"),
        ("stop tracking stuff about my location", DONT, "location"),
        ("forget what I said about my ex please", FORGET, "ex"),
        ("Can you forget what I told you about Julien?", FORGET, "Julien"),
        ("Please delete everything about my old job", FORGET, "old job"),
        ("You can remember things about my health again.", ALLOW, "health"),
        ("It's ok to remember my diet now", ALLOW, "diet"),
    ],
)
def test_a_request_gives_its_kind_and_topic(text: str, kind: RequestKind, topic: str) -> None:
    assert [(r.kind, r.topic) for r in read_requests(text)] == [(kind, topic)]


@pytest.mark.parametrize(
    "text",
    [
        "I never remember anything about maths",
        "my boss told me to forget about the deadline",
        "I always forget about my dentist appointment",
        "I don't remember much about my childhood",
        "We can't keep talking about money",
        "She asked me to stop worrying about work",
    ],
)
def test_what_a_person_says_of_their_own_memory_is_no_request(text: str) -> None:
    assert read_requests(text) == []


def test_each_sentence_is_read_in_order() -> None:
    text = "I live in Leeds. Don't store anything about my health. You can remember my diet though."
    assert [(r.kind, r.topic) for r in read_requests(text)] == [(DONT, "health"), (ALLOW, "diet")]


@pytest.mark.parametrize(
    ("text", "kind", "topic"),
    [
        ("Can you not remember things about my job search?", DONT, "job search"),
        ("Keep my bank details out of your memory.", DONT, "bank details"),
        ("please keep anything about my ex out of your memory", DONT, "ex"),
    ],
)
def test_a_request_said_another_common_way_is_read(text: str, kind: RequestKind, topic: str) -> None:
    assert [(r.kind, r.topic) for r in read_requests(text)] == [(kind, topic)]


@pytest.mark.parametrize(
    "text", ["Forget about it, the train was late again.", "don't worry about that", "forget about them honestly"]
)
def test_a_pronoun_is_no_topic(text: str) -> None:
    assert read_requests(text) == []


def test_an_allowed_topic_lifts_the_exclusion_it_names_in_more_or_fewer_words() -> None:
    assert same_topic("travel plans", "travel") and same_topic("Health", "my health")
    assert not same_topic("travel", "health") and not same_topic("work", "homework")
