"""Protected memories change only when their client says so (PATCH / DELETE).

Whatever an add decided (LLM, single call or offline rules), a decision that would rewrite or close a
protected memory is not applied: the statement behind it is stored beside the protected memory as a
new memory, and the task result's note says which protected memory it was kept beside. Maintenance
(prune, dedupe, summarise, expire) skips protected memories on its own.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aws_lambda_powertools import Logger

from engram.domain.models import Event, Fact
from engram.domain.steps import CandidateFact, Decision
from engram.text.match import overlap

logger = Logger(child=True)

STORES = (Event.ADD, Event.UPDATE)


def beside_note(memory_id: str) -> str:
    return f"kept beside protected {memory_id}"


def _changes(decision: Decision, old: Fact) -> bool:
    """Would applying the decision write a new version of, or close, the memory?"""
    if decision.event in (Event.UPDATE, Event.DELETE):
        return True
    # NONE rewrites only when it brings other attachments.
    return (
        decision.event is Event.NONE
        and decision.attachment_ids is not None
        and (set(decision.attachment_ids) != set(old.attachment_ids))
    )


def _statement(decision: Decision, candidates: Sequence[CandidateFact]) -> int | None:
    """The candidate fact a decision came from: its own index, else the fact its text shares most
    with (an LLM's DELETE and the rules' shrinking UPDATE name none), else the only fact there is."""
    if decision.fact_index is not None:
        return decision.fact_index
    facts = [i for i, c in enumerate(candidates) if c.kind == "fact"]
    scored = [(overlap(candidates[i].text, decision.text), i) for i in facts]
    best = max(scored, default=(0.0, None))
    if best[0] > 0:
        return best[1]
    return facts[0] if len(facts) == 1 else None


def _add_note(decision: Decision, note: str) -> None:
    if note not in (decision.note or ""):
        decision.note = f"{decision.note}; {note}" if decision.note else note


def keep_protected(
    decisions: Sequence[Decision], candidates: Sequence[CandidateFact], stored: Mapping[str, Fact]
) -> list[Decision]:
    """The decisions with every change to a protected memory (`stored`: the memories as the fact
    store has them) replaced by an ADD of its statement, in the same position."""
    blocked: dict[int, Fact] = {}
    for i, d in enumerate(decisions):
        old = stored.get(d.memory_id) if d.memory_id is not None else None
        if old is not None and old.is_protected and _changes(d, old):
            blocked[i] = old
    if not blocked:
        return list(decisions)
    out: list[Decision | None] = [None if i in blocked else d.model_copy() for i, d in enumerate(decisions)]
    stored_by = {d.fact_index: d for d in out if d is not None and d.event in STORES and d.fact_index is not None}
    for position, old in blocked.items():
        decision = decisions[position]
        note = beside_note(old.id)
        logger.info("change of a protected memory not applied", extra={"memory_id": old.id, "event": decision.event})
        index = _statement(decision, candidates)
        if index is not None and index in stored_by:  # the statement is stored already: say so there
            _add_note(stored_by[index], note)
            continue
        beside = _beside(decision, old, candidates[index] if index is not None else None, note)
        if beside is None:
            continue
        beside.fact_index = index
        out[position] = beside
        if index is not None:
            stored_by[index] = beside
    return [d for d in out if d is not None]


def _beside(decision: Decision, old: Fact, candidate: CandidateFact | None, note: str) -> Decision | None:
    """A new memory holding what the decision would have put into (or taken from) the protected one."""
    added = [a for a in (decision.attachment_ids or []) if a not in old.attachment_ids]
    importance: float | None
    if candidate is not None:
        text, importance = candidate.text, candidate.importance
    elif decision.event is Event.UPDATE:
        text, importance = decision.text, decision.importance
    elif added:  # new attachments for the protected memory's own text
        text, importance = old.text, old.importance
    else:  # a DELETE no statement explains: the protected memory simply stays
        return None
    return Decision(
        event=Event.ADD,
        text=text,
        importance=importance,
        attachment_ids=added or (list(candidate.attachment_ids) if candidate is not None else None) or None,
        note=f"{decision.note}; {note}" if decision.note else note,
    )
