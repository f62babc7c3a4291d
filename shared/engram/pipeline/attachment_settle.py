"""After the decisions: every attachment ends on the right memory, and none is ever lost.

The decider (LLM or offline rules) may say where attachments go; whatever it forgot, invented or
left on nothing is settled here by fixed rules, and each repair is written down.
"""

from __future__ import annotations

from collections.abc import Sequence

from aws_lambda_powertools import Logger

from engram.domain.models import Event, Fact
from engram.domain.steps import CandidateFact, Decision
from engram.text.match import overlap

logger = Logger(child=True)

SURVIVES = (Event.ADD, Event.UPDATE, Event.NONE)


def _unique(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def _note(decision: Decision, text: str) -> None:
    decision.note = f"{decision.note}; {text}" if decision.note else text
    logger.info("attachment repaired", extra={"repair": text, "memory_id": decision.memory_id})


def settle_attachments(
    decisions: Sequence[Decision], facts: Sequence[CandidateFact], existing: Sequence[Fact]
) -> list[Decision]:
    """Give every decision its final attachment list (None stays None only when nothing has any)."""
    if not any(f.attachment_ids for f in existing) and not any(c.attachment_ids for c in facts):
        return list(decisions)
    out = [d.model_copy() for d in decisions]
    old = {f.id: list(f.attachment_ids) for f in existing}
    for d in out:
        d.attachment_ids = _first_guess(d, facts, old)
    # Existing memories the decider did not mention keep what they hold.
    mentioned = {d.memory_id for d in out if d.memory_id}
    for memory_id, held in old.items():
        if memory_id not in mentioned and held:
            out.append(Decision(event=Event.NONE, text="", memory_id=memory_id, attachment_ids=list(held)))
    _restore_dropped(out, old)
    _place_new(out, facts)
    return [d for d in out if d.text or d.attachment_ids != old.get(d.memory_id or "")]


def _first_guess(d: Decision, facts: Sequence[CandidateFact], old: dict[str, list[str]]) -> list[str]:
    own = facts[d.fact_index].attachment_ids if d.fact_index is not None else []
    before = old.get(d.memory_id or "", [])
    if d.event is Event.DELETE:
        return list(before)  # the mapping goes with the memory unless moved below
    if d.attachment_ids is not None:
        return _unique(d.attachment_ids)
    return _unique([*before, *own])


def _holders(out: Sequence[Decision]) -> dict[str, list[Decision]]:
    held: dict[str, list[Decision]] = {}
    for d in out:
        if d.event in SURVIVES:
            for attachment_id in d.attachment_ids or []:
                held.setdefault(attachment_id, []).append(d)
    return held


def _restore_dropped(out: list[Decision], old: dict[str, list[str]]) -> None:
    """An existing attachment the decider dropped from a surviving memory, and put nowhere, goes back."""
    held = _holders(out)
    for d in out:
        if d.event is Event.DELETE or d.memory_id not in old:
            continue
        for attachment_id in old[d.memory_id]:
            if attachment_id not in held:
                d.attachment_ids = [*(d.attachment_ids or []), attachment_id]
                held[attachment_id] = [d]
                _note(d, f"attachment {attachment_id} restored")
    # A deleted memory keeps the attachments that moved nowhere; the ones that moved leave it.
    for d in out:
        if d.event is Event.DELETE:
            d.attachment_ids = [a for a in d.attachment_ids or [] if a not in held]


def _place_new(out: list[Decision], facts: Sequence[CandidateFact]) -> None:
    """A new attachment on no surviving memory goes to its fact's result, else the most similar memory."""
    for index, fact in enumerate(facts):
        for attachment_id in fact.attachment_ids:
            if attachment_id in _holders(out):
                continue
            target = _target(out, index, fact)
            if target is None:
                continue
            target.attachment_ids = _unique([*(target.attachment_ids or []), attachment_id])
            where = "kept with the deleted memory" if target.event is Event.DELETE else "placed"
            _note(target, f"attachment {attachment_id} {where}")


def _target(out: Sequence[Decision], index: int, fact: CandidateFact) -> Decision | None:
    for d in out:
        if d.fact_index == index and d.event in SURVIVES:
            return d
    surviving = [d for d in out if d.event in SURVIVES and d.text]
    if surviving:
        return max(surviving, key=lambda d: overlap(fact.text, d.text))
    deleted = [d for d in out if d.event is Event.DELETE]
    return max(deleted, key=lambda d: overlap(fact.text, d.text)) if deleted else None
