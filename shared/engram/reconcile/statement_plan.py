"""The plan's changes of state, resolved from statements instead of taken as the model chose them.

A model's UPDATE or DELETE of a memory, or an ADD beside one it keeps, is resolved from the new fact's
statements and the memory's (reconcile/statement_change.py) where they show a change of state: the older
value is outdated (its memory closed, or cut to what else it says; a memory whose text does not name the old
value is kept, a wrong cut being worse than two current values), a value said before the memory's becomes its
history (an UPDATE the applier stores with valid_to, pipeline/apply.py), a hedge or the past keeps the memory;
the new fact is added in its own words, with its statements. Where either side states nothing, or the
statements show no change of state, the decision goes on to the other plan checks (reconcile/checks.py).
Messages kept as said are left to them and to the applier, which marks what a later statement outdates."""

from __future__ import annotations

import re
from collections.abc import Sequence

from engram.domain.models import Event, Fact
from engram.domain.statements import of_the_person
from engram.domain.steps import CandidateFact, Decision
from engram.reconcile.statement_change import Change, SameAttribute, change
from engram.reconcile.supersede_check import joined, pieces

NOTE = "plan check: statements"
Planned = tuple[Decision, bool]  # a decision, and whether the statements settled it (no other check runs)


def by_statements(
    decisions: Sequence[Decision],
    facts: Sequence[CandidateFact],
    existing: Sequence[Fact],
    same_attribute: SameAttribute | None = None,
) -> list[Planned]:
    """`same_attribute`: whether two attributes as named are one, by meaning (else by their words)."""
    by_id = {m.id: m for m in existing}
    out: list[Planned] = []
    added: set[int] = set()  # the facts whose statements settled a change: each is added once
    touched: set[str] = set()
    for d in decisions:
        memory = by_id.get(d.memory_id or "")
        found = (
            _change_of(d, facts, memory, same_attribute) if d.event in (Event.UPDATE, Event.DELETE) and memory else None
        )
        if memory is None or found is None:
            out.append((d, False))
            continue
        index, resolved = found
        touched.add(memory.id)
        if resolved.older:
            out.append((_history(memory, index, facts[index]), True))
            continue
        out.append((_outdate(memory, resolved, facts[index]), True))
        added.add(index)
    _beside_adds(out, facts, existing, touched, same_attribute)
    for index in sorted(added):
        if not any(d.event is Event.ADD and d.fact_index == index for d, _ in out):
            fact = facts[index]
            out.append((Decision(event=Event.ADD, text=fact.text, fact_index=index, importance=fact.importance), True))
    return out


def _beside_adds(
    out: list[Planned],
    facts: Sequence[CandidateFact],
    existing: Sequence[Fact],
    touched: set[str],
    same_attribute: SameAttribute | None,
) -> None:
    """An ADD whose statements change what a memory the plan keeps states (the model added the new home
    and kept the old): that memory is resolved as if the model had named it."""
    named = {d.memory_id for d, _ in out if d.memory_id and d.event is not Event.NONE}
    for position, (d, _) in enumerate(list(out)):
        if d.event is not Event.ADD or d.fact_index is None or d.fact_index >= len(facts):
            continue
        fact = facts[d.fact_index]
        for memory in existing:
            if memory.id in named or memory.id in touched or not _resolvable(memory):
                continue
            resolved = change(fact.statements, memory.statements, memory.valid_from, same_attribute)
            if resolved is None or not (resolved.outdated or resolved.older):
                continue
            touched.add(memory.id)
            if resolved.older:  # the fact is the memory's history, not a current value beside it
                out[position] = (_history(memory, d.fact_index, fact), True)
                break
            decision = (_outdate(memory, resolved, fact), True)
            kept = next((i for i, (k, _) in enumerate(out) if k.memory_id == memory.id), None)
            if kept is None:
                out.append(decision)
            else:
                out[kept] = decision


def _change_of(
    d: Decision, facts: Sequence[CandidateFact], memory: Fact, same_attribute: SameAttribute | None
) -> tuple[int, Change] | None:
    if not _resolvable(memory):
        return None
    order = list(range(len(facts)))
    if d.fact_index is not None and d.fact_index < len(facts):  # the fact the decision came from first
        order.remove(d.fact_index)
        order.insert(0, d.fact_index)
    for index in order:
        resolved = change(facts[index].statements, memory.statements, memory.valid_from, same_attribute)
        if resolved is not None:
            return index, resolved
    return None


def _resolvable(memory: Fact) -> bool:
    return bool(memory.statements) and not memory.kept_as_said


def _history(memory: Fact, index: int, fact: CandidateFact) -> Decision:
    note = f'{NOTE}: "{fact.text}" was said before "{memory.text}": kept as its history'
    return Decision(event=Event.UPDATE, text=fact.text, memory_id=memory.id, fact_index=index, note=note)


def _outdate(memory: Fact, resolved: Change, fact: CandidateFact) -> Decision:
    """The memory without what the new fact outdates: closed when that is all it says, cut to the rest
    when its other clauses can be told apart, kept when its text does not name the old value."""
    by = resolved.by
    if by is None or not resolved.outdated:  # a hedge or the past: nothing changes
        what = "no change"
        if by is not None:  # a hedge, the past, or someone else's value ("my brother's job pilot")
            whose = "" if of_the_person(by.subject) else f"{by.subject}'s "
            what = f"{by.polarity} {whose}{by.attribute} {by.value}"
        return Decision(event=Event.NONE, text="", memory_id=memory.id, note=f'{NOTE}: "{fact.text}" is {what}: kept')
    stale = [s.value for s in resolved.outdated]
    parts = pieces(memory.text)
    kept = [(j, c) for j, c in parts if not any(_names(c, v) for v in stale)]
    now = (
        f"{by.attribute} is now {by.value}" if by.polarity == "asserted" else f"{by.attribute} {by.value} {by.polarity}"
    )
    if len(kept) == len(parts):
        note = f'{NOTE}: {now}, but "{memory.text}" does not name {", ".join(stale)}: kept'
        return Decision(event=Event.NONE, text="", memory_id=memory.id, note=note)
    note = f'{NOTE}: "{memory.text}" outdated by "{fact.text}" ({now})'
    if not kept:
        return Decision(event=Event.DELETE, text=memory.text, memory_id=memory.id, note=note)
    rest = [s for s in memory.statements if s not in resolved.outdated]
    return Decision(event=Event.UPDATE, text=joined(kept, memory.text), memory_id=memory.id, note=note, statements=rest)


def _names(clause: str, value: str) -> bool:
    """The value as whole words of the clause, whatever the script (bounded by the memory's size)."""
    return re.search(rf"(?<![^\W_]){re.escape(value.strip())}(?![^\W_])", clause, re.IGNORECASE) is not None
