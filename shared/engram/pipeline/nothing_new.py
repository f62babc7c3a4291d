"""Why an add changed no memory, in one line on its task (`note`), so a client can tell the user instead
of showing an empty result: nothing was said worth keeping, or every fact is stored already."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from engram.domain.models import AddRequest, Event, TaskResult
from engram.pipeline.episodes import read_role, states_something
from engram.text.transcript import choose_prompt

CHANGES = frozenset({Event.ADD, Event.UPDATE, Event.DELETE})


def _many(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def why_nothing_changed(request: AddRequest, counts: Mapping[str, int], results: Sequence[TaskResult]) -> str | None:
    """None when the add added, updated or deleted a memory; else the reason, read from what it found."""
    if any(result.event in CHANGES for result in results):
        return None
    facts = counts.get("facts", 0)
    if facts == 0 and counts.get("excluded"):
        return "no memory changed: the memory policy left out what it said (see `skipped`)"
    if facts == 0:
        if not request.infer:
            return "no memory changed: the add has only system messages, which are not stored"
        role = read_role(choose_prompt(request.messages, request.prompt))
        said = [m.content for m in request.messages if m.role == role]
        if not said:
            return f"no memory changed: no {role} message to read (the {role} messages are what is extracted)"
        if not any(states_something(text) for text in said):
            return "no memory changed: only greetings, small talk or questions, nothing to remember"
        return "no memory changed: no fact could be extracted from the messages"
    duplicates = counts.get("duplicates", 0)
    known = max(counts.get("NONE", 0) - duplicates, 0)
    reasons = []
    if duplicates:
        reasons.append(_many(duplicates, "near-duplicate of a current memory", "near-duplicates of current memories"))
    if known:
        reasons.append(_many(known, "already known (decided NONE)", "already known (decided NONE)"))
    found = _many(facts, "fact", "facts")
    return f"no memory changed: {found} found, " + (", ".join(reasons) if reasons else "none needed a change")
