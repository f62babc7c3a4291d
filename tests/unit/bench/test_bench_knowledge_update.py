"""The knowledge-update part's choice of questions and its scoring, on hand-made instances in
LongMemEval's shape (the dataset itself is never copied into the repo)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest

from bench.data.longmemeval_data import parse_question
from bench.data.longmemeval_updates import candidates, updates
from bench.parts.knowledge_update_score import Kept, kept, latest_and_older, score, summarise, turn_of
from bench.parts.longmemeval_score import UNKNOWN, Hit, hit_of
from engram.domain.models import Fact, MemorySource
from engram.domain.statements import Statement

OLD, NEW = "early#2", "late#0"
SESSIONS = {"task-early": "early", "task-late": "late", "task-noise": "noise"}  # each add's task -> its session
EVIDENCE = {OLD: datetime(2023, 5, 20, 2, 21, 2, tzinfo=UTC), NEW: datetime(2023, 5, 28, 9, tzinfo=UTC)}


def _item(question_id: str = "q1", kind: str = "knowledge-update", **over: Any) -> dict[str, Any]:
    item = {
        "question_id": question_id,
        "question_type": kind,
        "question": "Which book am I reading?",
        "answer": "Hamburg",
        "question_date": "2023/06/01 (Thu) 10:00",
        "haystack_session_ids": ["late", "early", "noise"],
        "haystack_dates": ["2023/05/28 (Sun) 09:00", "2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 23:59"],
        "haystack_sessions": [
            [{"role": "user", "content": "I just finished the book Dune today.", "has_answer": True}],
            [
                {"role": "user", "content": "Hi there"},
                {"role": "assistant", "content": "Hello!"},
                {"role": "user", "content": "I just started the book Dune today.", "has_answer": True},
            ],
            [{"role": "user", "content": "Any tips for pasta?"}],
        ],
        "answer_session_ids": ["late", "early"],
    }
    item.update(over)
    return item


def _one_day(item: dict[str, Any]) -> dict[str, Any]:
    return item | {"haystack_dates": ["2023/05/20 (Sat) 09:00", "2023/05/20 (Sat) 02:21", "2023/05/21 (Sun) 23:59"]}


def _hits(*turns: str) -> list[Hit]:
    return [Hit(turn=t, session=t.rpartition("#")[0], valid_from=datetime(2023, 6, 1, tzinfo=UTC)) for t in turns]


def _version(memory_id: str, turn: str, version: int = 1, **over: Any) -> Fact:
    session, _, index = turn.partition("#")
    fields: dict[str, Any] = {
        "id": memory_id,
        "tenant_id": "t",
        "user_id": "u",
        "text": f"said in {turn}",
        "version": version,
        "metadata": {"session_id": session},
        "source": MemorySource(task_id=f"task-{session}", message_index=int(index)),
    }
    return Fact(**(fields | over))


def test_knowledge_updates_are_chosen_when_their_evidence_was_said_at_two_times() -> None:
    update = parse_question(_item("ku"))
    abstention = parse_question(_item("ku_abs", haystack_sessions=[[{"role": "user", "content": "x"}], [], []]))
    once = parse_question(
        _item("once", answer_session_ids=["late"])
        | {"haystack_sessions": [[{"role": "user", "content": "I finished Dune.", "has_answer": True}], [], []]}
    )
    other = parse_question(_item("ss", "single-session-user"))

    assert [q.question_id for q in updates([update, abstention, once, other])] == ["ku"]


def test_a_temporal_question_counts_when_the_rule_finds_it_and_it_is_read_as_a_change() -> None:
    changed = parse_question(_item("2ebe6c92", "temporal-reasoning"))  # in CHANGED
    unread = parse_question(_item("t-unread", "temporal-reasoning"))  # a candidate nobody read as a change
    same_day = parse_question(_one_day(_item("gpt4_1d80365e", "temporal-reasoning")))  # in CHANGED, one day
    no_word = parse_question(_item("t-word", "temporal-reasoning", question="What happened first?"))

    assert [q.question_id for q in candidates([changed, unread, same_day, no_word])] == ["2ebe6c92", "t-unread"]
    assert [q.question_id for q in updates([changed, unread, same_day, no_word])] == ["2ebe6c92"]


def test_the_latest_dated_evidence_is_the_one_said_last() -> None:
    assert latest_and_older(EVIDENCE) == (NEW, [OLD])


@pytest.mark.parametrize(
    ("hits", "first"),
    [
        ((NEW, "noise#0", OLD), True),
        ((OLD, NEW), False),
        (("noise#0", OLD), False),  # the latest evidence not found
        (("noise#0", NEW), True),  # the older one not among the hits ranks below
        ((UNKNOWN, NEW, OLD), True),
    ],
)
def test_latest_first_needs_the_latest_evidence_above_every_older_one(hits: tuple[str, ...], first: bool) -> None:
    row = score(EVIDENCE, _hits(*hits), [])

    assert row["latest_first"] is first
    assert row["older_outdated"] is False  # the older turn left no memory: nothing was marked
    assert row["both"] is False


@pytest.mark.parametrize(
    ("versions", "outdated"),
    [
        ([_version("m1", OLD)], False),  # still current, unmarked
        ([_version("m1", OLD, valid_to=datetime(2023, 5, 28, tzinfo=UTC))], True),  # closed
        ([_version("m1", OLD, outdated_by=["m9"])], True),
        ([_version("m1", OLD, statements=[Statement(attribute="book", value="Dune", outdated_by="m9")])], True),
        (  # a later statement replaced its text: the current version comes from the latest turn
            [
                _version("m1", OLD, valid_to=datetime(2023, 5, 28, tzinfo=UTC)),
                _version("m1", NEW, version=2),
            ],
            True,
        ),
        (  # a change of the same memory that kept it from the older turn (a merge, a touch) marks nothing
            [
                _version("m1", OLD, valid_to=datetime(2023, 5, 28, tzinfo=UTC)),
                _version("m1", OLD, version=2),
            ],
            False,
        ),
        ([_version("m1", OLD), _version("m2", OLD, outdated_by=["m9"])], True),  # one memory of the turn is enough
        ([_version("m2", NEW, outdated_by=["m9"])], False),  # a mark on another turn's memory does not count
    ],
)
def test_the_older_evidence_is_outdated_when_one_of_its_memories_is_marked(
    versions: list[Fact], outdated: bool
) -> None:
    row = score(EVIDENCE, _hits(NEW, OLD), kept(versions, SESSIONS))

    assert row["latest_first"] is True
    assert row["older_outdated"] is outdated
    assert row["both"] is outdated


def test_score_refuses_evidence_said_at_one_time() -> None:
    with pytest.raises(ValueError, match="two or more times"):
        score({NEW: EVIDENCE[NEW]}, _hits(NEW), [])


def test_summary_gives_shares_over_every_question_scored() -> None:
    marked = kept([_version("m1", OLD, outdated_by=["m2"])], SESSIONS)
    rows = [
        score(EVIDENCE, _hits(NEW, OLD), marked),
        score(EVIDENCE, _hits(OLD, NEW), marked),
        score(EVIDENCE, _hits("noise#0"), []),
        score(EVIDENCE, _hits(NEW), []),
    ]

    out = summarise(rows)

    assert out == {
        "questions": 4,
        "latest_first": 0.5,
        "older_outdated": 0.5,
        "both": 0.25,
        "latest_found": 3,
        "latest_rank_median": 0,
        "older_above_latest": 1,
    }
    assert summarise([])["latest_first"] is None


def test_a_kept_memory_remembers_every_turn_its_versions_came_from() -> None:
    (memory,) = kept(
        [_version("m1", OLD, valid_to=datetime(2023, 5, 28, tzinfo=UTC)), _version("m1", NEW, 2)], SESSIONS
    )

    assert memory == Kept("m1", frozenset({OLD, NEW}), current=True, now_from=NEW, marked=False)
    assert memory.outdated_for(OLD) and not memory.outdated_for(NEW)


def test_a_memory_is_the_turn_of_its_add_even_when_an_update_kept_the_older_metadata() -> None:
    # "Lives in Berlin" (early#2) replaced by "Lives in Hamburg", said in late#0: the new version names the
    # late add's task and message but keeps the early add's metadata.
    updated = _version("m1", NEW, version=2, metadata={"session_id": "early"})
    unknown_task = _version("m2", OLD, source=MemorySource(task_id="elsewhere", message_index=2))
    several = _version("m3", OLD, source=MemorySource(task_id="task-early"))  # read from several messages

    assert turn_of(updated, SESSIONS) == NEW
    assert turn_of(unknown_task, SESSIONS) == OLD  # falls back on the metadata
    assert turn_of(several, SESSIONS) is None
    assert hit_of(updated, SESSIONS).turn == NEW and hit_of(several, SESSIONS).turn == UNKNOWN


def test_the_summary_table_shows_each_mode_and_only_types_with_questions() -> None:
    from bench.report.report_longmemeval import update_sections

    marked = kept([_version("m1", OLD, outdated_by=["m2"])], SESSIONS)
    rows = [score(EVIDENCE, _hits(NEW, OLD), marked), score(EVIDENCE, _hits(OLD, NEW), [])]
    mode = {"overall": summarise(rows), "knowledge-update": summarise(rows), "temporal (changed)": summarise([])}
    part = {
        "results": {"pipeline": mode},
        "method": {"questions": "2 of 2 knowledge-update questions"},
        "wall_s": 1.0,
    }

    ((title, lines),) = update_sections({"knowledge_update": part})

    table = "\n".join(lines)
    assert "knowledge updates" in title
    assert "| pipeline | knowledge-update | 2 | 0.500 | 0.500 | 0.500 | 2 | 0.500 | 1 |" in table
    assert "temporal (changed)" not in table
    assert update_sections({}) == []
