"""The benchmark's reading of LoCoMo: evidence ids, session dates and memory texts.

The samples here are made up in LoCoMo's shape; the dataset itself is never copied into the repo.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from bench.data.locomo_data import (
    Turn,
    normalise_evidence,
    parse_conversation,
    parse_session_date,
    parse_session_time,
    split_evidence,
)
from bench.parts.locomo_recall import said_at


@pytest.mark.parametrize(
    ("raw", "ids"),
    [
        ("D1:3", ["D1:3"]),
        ("D8:6; D9:17", ["D8:6", "D9:17"]),
        ("D9:1 D4:4 D4:6", ["D9:1", "D4:4", "D4:6"]),
        ("D:11:26", ["D11:26"]),
        ("D30:05", ["D30:5"]),
        ("D", []),
        ("", []),
    ],
)
def test_malformed_evidence_ids_are_normalised(raw: str, ids: list[str]) -> None:
    assert split_evidence(raw) == ids


def test_evidence_naming_no_turn_is_dropped_and_reported() -> None:
    known = {"D1:1", "D1:2", "D2:1"}

    kept, dropped = normalise_evidence(["D1:2; D2:1", "D10:19", "D", "D1:2"], known)

    assert kept == ("D1:2", "D2:1")
    assert dropped == ("D10:19", "D")


def test_session_dates() -> None:
    assert parse_session_date("1:56 pm on 8 May, 2023") == date(2023, 5, 8)
    assert parse_session_date("10:37 am on 27 June, 2023") == date(2023, 6, 27)
    assert parse_session_date("sometime") is None


def test_session_times_keep_the_time_of_day_as_utc() -> None:
    assert parse_session_time("1:56 pm on 8 May, 2023") == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert parse_session_time("12:09 am on 13 September, 2023") == datetime(2023, 9, 13, 0, 9, tzinfo=UTC)
    assert parse_session_time("10:37 am on 27 June, 2023") == datetime(2023, 6, 27, 10, 37, tzinfo=UTC)
    assert parse_session_time("8 May, 2023") is None


def test_a_turn_is_said_at_its_session_time_a_second_per_turn_before_it() -> None:
    first = Turn("D3:1", "Ann", "Hi", 3, datetime(2023, 5, 8, 13, 56, tzinfo=UTC))
    fifth = Turn("D3:5", "Ann", "Bye", 3, datetime(2023, 5, 8, 13, 56, tzinfo=UTC))

    assert said_at(first) == datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    assert said_at(fifth) == datetime(2023, 5, 8, 13, 56, 4, tzinfo=UTC)
    assert said_at(Turn("D3:2", "Ann", "Hm", 3, None)) is None


def test_a_turn_becomes_a_self_contained_memory() -> None:
    said = datetime(2023, 5, 8, 13, 56, tzinfo=UTC)
    turn = Turn("D1:5", "Caroline", "The stories were inspiring!", 1, said, "a photo of a mural")

    expected = "Caroline: The stories were inspiring! [shares a photo: a photo of a mural] (8 May 2023)"
    assert turn.memory_text() == expected
    assert turn.memory_text(dated=False) == "Caroline: The stories were inspiring! [shares a photo: a photo of a mural]"
    assert turn.metadata() == {"session": 1, "dia_id": "D1:5", "session_date": "2023-05-08"}


def test_parse_conversation_keeps_categories_one_to_four() -> None:
    sample = {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Ann",
            "speaker_b": "Bo",
            "session_1_date_time": "1:00 pm on 2 January, 2024",
            "session_1": [
                {"speaker": "Ann", "dia_id": "D1:1", "text": "I adopted a cat."},
                {"speaker": "Bo", "dia_id": "D1:2", "text": "Nice!", "blip_caption": "a cat"},
            ],
            "session_2_date_time": "2:00 pm on 9 January, 2024",
            "session_2": [{"speaker": "Ann", "dia_id": "D2:1", "text": "The cat is called Tom."}],
        },
        "qa": [
            {"question": "What pet did Ann adopt?", "answer": "a cat", "evidence": ["D1:1"], "category": 4},
            {"question": "What is the cat called?", "answer": "Tom", "evidence": ["D2:1; D1:1"], "category": 1},
            {"question": "Trick question?", "adversarial_answer": "x", "evidence": ["D1:2"], "category": 5},
            {"question": "No evidence?", "answer": "y", "evidence": ["D7:1"], "category": 2},
        ],
    }

    conv = parse_conversation(sample)

    assert [t.dia_id for t in conv.turns] == ["D1:1", "D1:2", "D2:1"]
    assert conv.turns[2].session_date == date(2024, 1, 9)
    assert conv.turns[1].caption == "a cat"
    assert [(q.category, q.evidence) for q in conv.questions] == [(4, ("D1:1",)), (1, ("D2:1", "D1:1")), (2, ())]
    assert conv.questions[2].dropped == ("D7:1",)
    assert conv.user_id == "locomo-conv-x"
    # the QA and session-recall labs store each turn as its speaker said it (the search's speaker step)
    from bench.parts.qa import locomo_memories

    assert [m.speaker for m in locomo_memories(conv)] == ["Ann", "Bo", "Ann"]
