"""The LongMemEval part's reading of the data and its scoring, on a hand-made instance in the
dataset's shape (the dataset itself is never copied into the repo)."""

from __future__ import annotations

from collections import Counter
from datetime import UTC, datetime
from typing import Any

import pytest

from bench.data.longmemeval_data import TYPES, parse_date, parse_question, stratified
from bench.parts.longmemeval_score import UNKNOWN, Hit, hit_of, newest_first, score, summarise
from engram.domain.models import Fact, MemorySource

MAY_20 = datetime(2023, 5, 20, 2, 21, tzinfo=UTC)


def _item(**over: Any) -> dict[str, Any]:
    item = {
        "question_id": "q1",
        "question_type": "knowledge-update",
        "question": "Where do I live now?",
        "answer": "Hamburg",
        "question_date": "2023/06/01 (Thu) 10:00",
        # The file does not always list sessions by date: "late" comes first here.
        "haystack_session_ids": ["late", "early", "noise"],
        "haystack_dates": ["2023/05/28 (Sun) 09:00", "2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 23:59"],
        "haystack_sessions": [
            [{"role": "user", "content": "I moved to Hamburg.", "has_answer": True}],
            [
                {"role": "user", "content": "Hi there"},
                {"role": "assistant", "content": "Hello!", "has_answer": False},
                {"role": "user", "content": "I live in Berlin.", "has_answer": True},
            ],
            [{"role": "user", "content": "Any tips for pasta?"}, {"role": "assistant", "content": "Salt the water."}],
        ],
        "answer_session_ids": ["late", "early"],
    }
    item.update(over)
    return item


def _hit(turn: str, day: int = 20) -> Hit:
    return Hit(
        turn=turn,
        session=turn.rpartition("#")[0] if turn != UNKNOWN else UNKNOWN,
        valid_from=datetime(2023, 5, day, 12, tzinfo=UTC),
    )


def test_dates_are_read_as_utc_with_the_time_of_day() -> None:
    assert parse_date("2023/05/20 (Sat) 02:21") == MAY_20


def test_sessions_go_in_the_order_said_and_turns_a_second_apart() -> None:
    q = parse_question(_item())

    assert [s.session_id for s in q.sessions] == ["early", "noise", "late"]
    assert q.evidence() == {
        "early#2": datetime(2023, 5, 20, 2, 21, 2, tzinfo=UTC),
        "late#0": datetime(2023, 5, 28, 9, 0, tzinfo=UTC),
    }
    assert q.evidence_sessions() == {"early", "late"}
    assert not q.abstention
    assert parse_question(_item(question_id="q1_abs")).abstention


def test_a_memory_maps_to_its_turn_through_session_metadata_and_source_message() -> None:
    said = datetime(2023, 5, 20, 2, 21, 2, tzinfo=UTC)
    episode = Fact(
        tenant_id="t",
        user_id="u",
        text="I live in Berlin.",
        valid_from=said,
        metadata={"session_id": "early", "session": 0},
        source=MemorySource(task_id="x", message_index=2),
    )
    of_several = episode.model_copy(update={"source": MemorySource(task_id="x")})
    stray = episode.model_copy(update={"metadata": {}})

    assert hit_of(episode) == Hit(turn="early#2", session="early", valid_from=said)
    assert hit_of(of_several) == Hit(turn=UNKNOWN, session="early", valid_from=said)
    assert hit_of(stray).turn == UNKNOWN and hit_of(stray).session == UNKNOWN


def test_turn_and_session_recall_and_the_day_of_retrieved_evidence() -> None:
    evidence = parse_question(_item()).evidence()  # early#2 (20 May), late#0 (28 May)
    # early#2 at rank 3 (dated right), late's session at rank 2 through another turn, late#0 at rank 8
    # (dated the day it was stored, not said).
    hits = [
        _hit("noise#0"),
        _hit("late#5"),
        _hit("early#2", 20),
        _hit(UNKNOWN),
        _hit("noise#1"),
        _hit("noise#0"),
        _hit("noise#1"),
        _hit("late#0", 30),
    ]

    got = score(evidence, hits)

    assert got["turn_recall@5"] == 0.5
    assert got["turn_recall@10"] == 1.0
    assert got["turn_all@10"] == 1.0
    assert got["session_recall@5"] == 1.0  # "late" is among the sessions of the top 5 through late#5
    assert got["session_recall@10"] == 1.0
    assert (got["evidence_in_top10"], got["evidence_dated_that_day"]) == (2, 1)
    assert score(evidence, hits[:3])["turn_all@10"] == 0.0


def test_knowledge_update_ordering_counts_only_questions_that_tell() -> None:
    evidence = parse_question(_item()).evidence()  # newest evidence: late#0

    assert newest_first(evidence, [_hit("late#0"), _hit("early#2")]) is True
    assert newest_first(evidence, [_hit("noise#0"), _hit("early#2"), _hit("late#0")]) is False
    assert newest_first(evidence, [_hit("late#0")]) is None  # the older evidence was not retrieved
    assert newest_first(evidence, [_hit("early#2")]) is None  # nor the newest
    beyond = [_hit("early#2"), *[_hit("noise#0")] * 19, _hit("late#0")]
    assert newest_first(evidence, beyond) is None  # the newest is 21st: outside the top 20
    assert newest_first({"a#0": MAY_20, "a#3": MAY_20}, [_hit("a#3"), _hit("a#0")]) is None  # one session


def test_summary_pools_dated_evidence_and_reports_the_ordering_over_questions_that_tell() -> None:
    evidence = parse_question(_item()).evidence()
    rows = [
        score(evidence, [_hit("late#0", 28), _hit("early#2", 20)]),  # both dated right, newest first
        score(evidence, [_hit("early#2", 30)]),  # dated wrong, ordering untold
    ]

    got = summarise(rows)

    assert got["questions"] == 2
    assert got["turn_recall@10"] == 0.75
    assert (got["evidence_in_top10"], got["valid_from_on_the_day"]) == (3, 0.6667)
    assert got["newest_first"] == {"questions": 1, "share": 1.0}


def test_the_subset_is_stratified_and_fixed_by_question_id() -> None:
    kinds = ["multi-session"] * 12 + ["knowledge-update"] * 6 + ["single-session-preference"] * 2
    questions = [parse_question(_item(question_id=f"q{i}", question_type=k)) for i, k in enumerate(kinds)]

    chosen = stratified(questions, 10)

    assert Counter(q.question_type for q in chosen) == {
        "multi-session": 6,
        "knowledge-update": 3,
        "single-session-preference": 1,
    }
    again = stratified(list(reversed(questions)), 10)
    assert {q.question_id for q in again} == {q.question_id for q in chosen}
    assert stratified(questions, 50) == questions
    with pytest.raises(ValueError, match="cannot hold each of the 3 question types"):
        stratified(questions, 2)  # was an empty min() deep inside


def test_the_summary_table_shows_each_mode_and_only_types_with_questions() -> None:
    from bench.report.report_longmemeval import sections

    evidence = parse_question(_item()).evidence()
    rows = [{**score(evidence, [_hit("late#0", 28), _hit("early#2", 20)]), "type": "knowledge-update"}]
    by_type = {kind: summarise(r for r in rows if r["type"] == kind) for kind in ("knowledge-update", "multi-session")}
    empty = summarise([])
    mode = {
        "overall": summarise(rows),
        **{k: empty for k in TYPES},
        **by_type,
        "search_p50_ms": 3.5,
        "ingest": {"turns": 6, "memories": 5, "cpu_ms_per_turn": 30.0},
    }
    part = {
        "results": {"raw turns": mode},
        "method": {"subset": "1 of 184 questions", "search_now": False},
        "abstention_not_scored": 0,
        "wall_s": 1.0,
    }

    ((title, lines),) = sections({"longmemeval": part})

    assert title == "LongMemEval_S retrieval"
    table = "\n".join(lines)
    assert "| raw turns | knowledge-update | 1 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 | 1.000 |" in table
    assert "multi-session" not in table
    assert "| raw turns | 3.500 | 1.0 of 1 | 30.0 | 5 from 6 turns |" in table
