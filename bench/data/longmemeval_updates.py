"""The LongMemEval_S questions where a value changed (issue 42's knowledge-update measure,
bench/parts/knowledge_update.py), from the bench's 184-question third.

- Every knowledge-update question that has evidence turns (`has_answer`) in two or more sessions said at
  different times. In the third: 28 of 29 (the abstention question has no evidence turn); each has
  two user turns in two sessions on different days.
- The temporal-reasoning questions where a value changed. The data does not mark them: a temporal
  question with evidence in sessions said on different days is as often two events that both stay
  true ("which did I do first, X or Y", "how many days between X and Y"). `candidates` narrows them
  with a rule on the data (evidence in sessions on two or more days, and a word of the question
  that every evidence turn says: one thing spoken of again later); of the 7 it finds, reading them
  shows 2 where the later turn changes what the earlier one said (`CHANGED`). The other 5 are events
  that each stay true (museum visits, a cancelled subscription and a grocery order, a car's
  suspension feedback and test, market sales, a gala and a bake sale).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from bench.data.longmemeval_data import Question

KNOWLEDGE_UPDATE = "knowledge-update"
TEMPORAL = "temporal-reasoning"
# Read by hand among `candidates`: the later evidence turn outdates the earlier one.
CHANGED = {
    "2ebe6c92": "'just started The Nightingale today' -> 'just finished The Nightingale today'",
    "gpt4_1d80365e": "'just started my solo camping trip to Yosemite today' -> 'just got back from it today'",
}
_WORD = re.compile(r"[a-z]{4,}")  # linear; the words the rule compares (lower-cased, four letters or more)
_COMMON = frozenset(
    "what which when where does have that this with from your about many much were they them then than into "
    "time times days weeks months passed since before after first last most recently".split()
)


def _words(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in _COMMON}


def spans_days(q: Question) -> bool:
    """Evidence in two or more sessions, said on different days."""
    return len({s.said_at.date() for s in q.sessions if any(t.has_answer for t in s.turns)}) >= 2


def candidates(questions: Sequence[Question]) -> list[Question]:
    """Temporal-reasoning questions that may be about a value that changed: evidence said on two or more
    days, and a word of the question said in every evidence turn."""
    out = []
    for q in questions:
        if q.question_type != TEMPORAL or q.abstention or not spans_days(q):
            continue
        shared = _words(q.question)
        for s in q.sessions:
            for t in s.turns:
                if t.has_answer:
                    shared &= _words(t.content)
        if shared:
            out.append(q)
    return out


def updates(questions: Sequence[Question]) -> list[Question]:
    """The questions the measure scores, in the file's order: knowledge updates with evidence said at two
    or more times, and the temporal-reasoning questions of `CHANGED`."""
    chosen = {q.question_id for q in candidates(questions) if q.question_id in CHANGED}
    return [q for q in questions if (q.question_type == KNOWLEDGE_UPDATE and _said_twice(q)) or q.question_id in chosen]


def _said_twice(q: Question) -> bool:
    """Evidence in two or more sessions said at different times: a latest one and an older one."""
    evidence = q.evidence_sessions()
    return len({s.said_at for s in q.sessions if s.session_id in evidence}) >= 2
