"""A person's requests about their own memory, read from what they say (safety/requests.py)."""

from __future__ import annotations

import pytest

from engram.safety.requests import RequestKind, is_person, people, read_requests, same_topic, unsaid

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


@pytest.mark.parametrize(
    ("text", "kind", "topic"),
    [
        ("hey could u pls not save anything abt my bank stuff", DONT, "bank"),
        ("Kindly do not store any details regarding my pension.", DONT, "pension"),
        ("I'd appreciate it if you didn't remember anything about my dating life.", DONT, "dating life"),
        ("I'd rather you didn't keep anything about my surgery", DONT, "surgery"),
        ("From now on, don't keep track of my spending, mate.", DONT, "spending"),
        ("No need to remember anything about my kids going forward.", DONT, "kids"),
        ("Please refrain from storing information about my beliefs.", DONT, "beliefs"),
        ("Going forward please avoid remembering anything about my court case", DONT, "court case"),
        ("I don't want you saving anything about my job hunt, ok?", DONT, "job hunt"),
        ("Dont store nothing about my money pls", DONT, "money"),
        ("Would you mind not saving anything about my weight?", DONT, "weight"),
        ("Don't save my home address.", DONT, "home address"),
        ("pls forget wat i said about my landlord", FORGET, "landlord"),
        ("Would you mind deleting what I've shared about my mental health?", FORGET, "mental health"),
        ("I need you to forget everything you know about my ex", FORGET, "ex"),
        ("Please forget about remembering anything on my kids from now on.", DONT, "kids"),
        ("ok u can remember my diet stuff again", ALLOW, "diet"),
        ("You're welcome to remember my health info again.", ALLOW, "health"),
        ("you can go back to remembering things about my travel", ALLOW, "travel"),
    ],
)
def test_a_request_in_other_words_typos_and_politeness_forms_is_read(text: str, kind: RequestKind, topic: str) -> None:
    assert [(r.kind, r.topic) for r in read_requests(text)] == [(kind, topic)]


@pytest.mark.parametrize(
    ("text", "kind", "topic"),
    [
        ("Thanks so much, and please don't keep anything about my health", DONT, "health"),
        ("Changed my mind - you can keep notes about my partner again.", ALLOW, "partner"),
        ("I live in Leeds and please don't store my address", DONT, "address"),
        ("Can you please stop remembering stuff regarding my health, it's private.", DONT, "health"),
    ],
)
def test_a_request_after_a_comma_a_dash_or_an_and_please_is_read(text: str, kind: RequestKind, topic: str) -> None:
    assert [(r.kind, r.topic) for r in read_requests(text)] == [(kind, topic)]


@pytest.mark.parametrize(
    "text",
    [
        "My boss said, forget about the deadline",
        "The sign says: do not store anything about passengers",
        "When I'm stressed, I never remember anything about my schedule",
        "To be honest, forgetting everything about my ex would be nice",
        "Honestly, I'd rather forget everything about last year.",
        "My dad never remembers anything about his meds.",
        "The app told me to stop saving photos about every trip.",
        "I keep forgetting stuff about my own schedule lol",
        "Sorry, can you remember what I said about my job?",
        "Not remembering anything about my childhood is weird",
        "you can keep the change",
    ],
)
def test_reported_words_and_what_a_person_says_of_memory_after_a_comma_are_no_request(text: str) -> None:
    assert read_requests(text) == []


@pytest.mark.parametrize(
    ("text", "left"),
    [
        ("Please never store anything about my finances.", ""),
        ("I live in Leeds and please don't store my address", "I live in Leeds."),
        (
            "I've moved to Cardiff. Please don't remember anything about my medical stuff though. I'm a carpenter.",
            "I've moved to Cardiff. I'm a carpenter.",
        ),
        ("Changed my mind - you can keep notes about my partner again.", "Changed my mind."),
        ("I love tea, honestly.", "I love tea, honestly."),
    ],
)
def test_a_request_is_cut_from_what_the_message_leaves_to_remember(text: str, left: str) -> None:
    # "You can remember my diet again" was stored as a memory of the user
    assert unsaid(text) == left


def test_someone_a_topic_names_by_role_is_known_by_the_name_the_user_gave_them() -> None:
    said = [
        "My daughter Isla has been unwell.",
        "Has a son named Max",
        "Ana, my ex, moved to Madrid",
        "my boss is Karen",
    ]
    assert people("daughter", said) == ["Isla"] and people("son", said) == ["Max"] and people("ex", said) == ["Ana"]
    assert people("my husband's job", ["My husband Raj lost his job."]) == ["Raj"]
    assert people("boss", said) == ["Karen"] and people("finances", said) == []
    assert people("daughter", ["my daughter is six", "My daughter. She is six"]) == []  # no name given
    assert is_person("daughter") and not is_person("husband's job")
