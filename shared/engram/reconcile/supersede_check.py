"""The plan check that finishes a move or a job change the model left half done.

A weak model often adds the new home or employer and keeps the old one ("UPDATE" of the old memory
with its own text, a repeated ADD of it, or nothing at all): the user would have two current homes.
Engram knows single-valued aspects by meaning (state/aspects.py), and offline it closes the
older statement of another value (state/supersede.py); this check does the same to the plan.
When an ADD states a single-valued aspect (home, employer, job, partner, diet) and a memory the plan
leaves as it is states the same aspect with another value (and never the same one), that memory's
clause of the old value is superseded: a memory that says nothing else is closed (DELETE), one that
says more keeps the rest (UPDATE without the stale clause; the old value replaced in place when its
clause holds other names or places). The reason goes in the decision's note.

The reading is passed in (`SingleValues`: AspectReader.single_values, which reads each memory in
the first person); bootstrap gives the pipeline's own reader, so both share one cache.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from aws_lambda_powertools import Logger

from engram.domain.models import Event, Fact
from engram.domain.steps import Decision
from engram.text.match import protected_details, values_match

logger = Logger(child=True)

# The single-valued aspects, with values, that each of some memories' texts states.
SingleValues = Callable[[Sequence[str]], list[list[tuple[str, str]]]]

_SUBJECT = re.compile(r"(?:the\s+)?user\b(?!')\s*", re.IGNORECASE)
# Where one memory joins statements: the joiner stays with the clause after it.
_JOIN = re.compile(r"\s*[,;]\s*(?:and\s+|but\s+)?|\s+(?:and|but|while|plus|also)\s+", re.IGNORECASE)


def pieces(text: str) -> list[tuple[str, str]]:
    """(joiner before it, clause) for each statement a memory joins; the first has no joiner."""
    out: list[tuple[str, str]] = []
    start, joiner = 0, ""
    for found in _JOIN.finditer(text):
        out.append((joiner, text[start : found.start()]))
        start, joiner = found.end(), found.group(0)
    out.append((joiner, text[start:]))
    return [(j, c) for j, c in out if c.strip()]


def joined(parts: Sequence[tuple[str, str]], original: str) -> str:
    """The clauses put back together; a memory that lost its first clause keeps its subject."""
    if not parts:
        return ""
    text = parts[0][1] + "".join(j + c for j, c in parts[1:])
    text = text.strip().rstrip(",;")
    subject = _SUBJECT.match(original.strip())
    if parts[0][0] and subject and not _SUBJECT.match(text):
        return original.strip()[: subject.end()] + text
    return text[:1].upper() + text[1:]


def _has_word(text: str, value: str) -> re.Match[str] | None:
    return re.search(rf"(?<![^\W_]){re.escape(value)}(?![^\W_])", text, re.IGNORECASE)


@dataclass
class Supersede:
    single_values: SingleValues

    def __call__(self, decisions: list[Decision], existing: Sequence[Fact]) -> list[Decision]:
        first: dict[str, int] = {}
        for i, d in enumerate(decisions):
            if d.memory_id is not None:
                first.setdefault(d.memory_id, i)
        stays = [m for m in existing if m.id not in first or decisions[first[m.id]].event is Event.NONE]
        adds = [d for d in decisions if d.event is Event.ADD and d.text]
        if not stays or not adds:
            return decisions
        said = self.single_values([d.text for d in adds])
        if not any(said):
            return decisions
        held = dict(zip((m.id for m in stays), self.single_values([m.text for m in stays]), strict=True))
        out = list(decisions)
        done: set[str] = set()
        for d, pairs in zip(adds, said, strict=True):
            for memory in stays:
                if memory.id in done:
                    continue
                for aspect, value in pairs:
                    stale = [v for a, v in held[memory.id] if a == aspect]
                    if not stale or any(values_match(v, value) for v in stale):
                        continue
                    repair = self._supersede(memory, stale, value, aspect, d.text)
                    if repair is None:
                        continue
                    logger.warning("superseded a memory the plan kept", extra={"memory_id": memory.id})
                    done.add(memory.id)
                    if memory.id in first:
                        earlier = out[first[memory.id]].note
                        repair.note = f"{earlier}; {repair.note}" if earlier else repair.note
                        out[first[memory.id]] = repair
                    else:
                        out.append(repair)
                    break
        return out

    def _supersede(self, memory: Fact, stale: list[str], value: str, aspect: str, by: str) -> Decision | None:
        """The memory without its clauses of the stale value: closed when nothing else is left."""
        parts = pieces(memory.text)
        kept: list[tuple[str, str]] = []
        replaced = False
        for joiner, clause in parts:
            found = next((m for v in stale if (m := _has_word(clause, v))), None)
            if found is None:
                kept.append((joiner, clause))
                continue
            others = protected_details(clause) - {w.lower() for w in found.group(0).split()}
            if others:  # "a teacher in Leeds" -> "a headteacher in Leeds": Leeds is not stale
                kept.append((joiner, clause[: found.start()] + value + clause[found.end() :]))
                replaced = True
        if len(kept) == len(parts) and not replaced:
            return None  # the stale value is not in the text as read: leave the memory as it is
        note = f'plan check: superseded: "{memory.text}" gives way to "{by}" ({aspect} is now {value})'
        if not kept:
            return Decision(event=Event.DELETE, text=memory.text, memory_id=memory.id, note=note)
        return Decision(event=Event.UPDATE, text=joined(kept, memory.text), memory_id=memory.id, note=note)
