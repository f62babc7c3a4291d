"""What a later statement did to an older memory: the statement of it that ended, and how the memory was
kept. Written by the resolution (state/supersede.py), read by the graph so a relation closes with the
memory that ended it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from engram.domain.models import Fact, utcnow


@dataclass(frozen=True)
class Outdated:
    memory_id: str  # the older memory
    aspect: str  # what of the person it stated (home, employer, job, partner, diet, ...)
    values: tuple[str, ...]  # the values it stated of that aspect, now replaced
    by: str  # the memory that replaced them
    at: datetime  # when that was said
    closed: bool  # the memory was closed; else it stays current, marked `outdated_by`


def outdated_version(kept: Fact, by: str) -> Fact:
    """The next version of a memory kept current that the memory `by` outdated in part."""
    update = {"outdated_by": [*kept.outdated_by, by], "version": kept.version + 1, "updated_at": utcnow()}
    return kept.model_copy(update=update)
