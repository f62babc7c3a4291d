"""What `engram import` reads from each kind of file (clients/python/engram_client/cli/sources.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engram_client.cli.sources import SourceError, read_units

LOCOMO = {
    "sample_id": "conv-1",
    "conversation": {
        "speaker_a": "Caroline",
        "speaker_b": "Melanie",
        "session_2": [{"speaker": "Melanie", "dia_id": "D2:1", "text": "I ran a charity race."}],
        "session_2_date_time": "1:14 pm on 25 May, 2023",
        "session_1": [
            {"speaker": "Caroline", "dia_id": "D1:1", "text": "I went to a support group."},
            {"speaker": "Melanie", "dia_id": "D1:2", "text": "Look!", "blip_caption": "a painted lake"},
        ],
        "session_1_date_time": "1:56 pm on 8 May, 2023",
    },
}


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_messages_are_batched_in_order(tmp_path: Path) -> None:
    lines = [json.dumps({"role": "user", "content": f"turn {i}"}) for i in range(5)]
    units = read_units(write(tmp_path, "m.jsonl", "\n".join(lines) + "\n\n"), "alice", batch=2)
    assert [[m["content"] for m in u.messages] for u in units] == [
        ["turn 0", "turn 1"],
        ["turn 2", "turn 3"],
        ["turn 4"],
    ]
    assert {u.user_id for u in units} == {"alice"}


def test_messages_need_a_user_and_content(tmp_path: Path) -> None:
    path = write(tmp_path, "m.jsonl", '{"role": "user", "content": "hi"}\n')
    with pytest.raises(SourceError, match="--user-id"):
        read_units(path, None, batch=10)
    bad = write(tmp_path, "bad.jsonl", '{"role": "user", "content": "hi"}\n{"role": "user"}\n')
    with pytest.raises(SourceError, match="line 2"):
        read_units(bad, "alice", batch=10)


def test_locomo_sessions_in_order_with_speakers_dates_and_captions(tmp_path: Path) -> None:
    units = read_units(write(tmp_path, "locomo.json", json.dumps([LOCOMO])), None, batch=10)
    assert [u.metadata for u in units] == [
        {"session": 1, "session_date": "1:56 pm on 8 May, 2023"},
        {"session": 2, "session_date": "1:14 pm on 25 May, 2023"},
    ]
    assert [m["content"] for m in units[0].messages] == [
        "Caroline: I went to a support group.",
        "Melanie: Look! [shares a photo: a painted lake]",
    ]
    assert units[0].user_id == "locomo-conv-1"


def test_an_export_restores_under_its_own_or_a_given_user(tmp_path: Path) -> None:
    header = {"type": "engram-export", "version": 1, "user_id": "alice"}
    memory = {"id": "m1", "memory": "Lives in Berlin", "user_id": "alice", "metadata": {"k": 1}}
    path = write(tmp_path, "e.jsonl", json.dumps(header) + "\n" + json.dumps(memory) + "\n")
    assert [(u.user_id, u.memory) for u in read_units(path, None, batch=10)] == [("alice", memory)]
    assert read_units(path, "bob", batch=10)[0].user_id == "bob"


def test_an_exports_relations_are_units_of_the_exported_or_a_given_user(tmp_path: Path) -> None:
    header = {"type": "engram-export", "version": 4, "user_id": "alice"}
    relation = {"type": "relation", "id": "r1", "relation": "lives_in"}
    path = write(tmp_path, "e.jsonl", json.dumps(header) + "\n" + json.dumps(relation) + "\n")
    assert [(u.user_id, u.memory, u.relation) for u in read_units(path, None, batch=10)] == [("alice", None, relation)]
    assert read_units(path, "bob", batch=10)[0].user_id == "bob"
    nameless = write(tmp_path, "n.jsonl", json.dumps({"type": "engram-export"}) + "\n" + json.dumps(relation) + "\n")
    with pytest.raises(SourceError, match="line 2"):
        read_units(nameless, None, batch=10)
