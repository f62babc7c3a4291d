"""What an export followed by an import must give back: every field of the stored memory model
(`Fact.model_fields`, so a field added later is compared too), with the ids and the target mapped."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from engram.domain.models import Fact, MemorySource

MAPPED_IDS = {"id", "episode_id"}  # memory ids: the imported memory's own
MAPPED_ID_LISTS = {"outdated_by", "summarized_from"}
THE_TARGETS = {"tenant_id", "user_id", "embedding_model"}  # where it was imported to, and its embedder
# Only current versions are exported (docs/api.md, "Export and import"): every memory compared is current.
CURRENT_ONLY = {"valid_to"}

# The attachments a memory holds, as a reader sees them (ids differ: they are uploaded again).
Shown = Callable[[Sequence[str]], list[tuple[Any, ...]]]


def said(source: MemorySource | None) -> dict[str, Any]:
    """Who said it, when, which part, and whether a person corrected it; the task and the message
    within it are the import's own (the exported task is not in the target)."""
    return (source or MemorySource(task_id="")).model_dump(exclude={"task_id", "message_index"})


def lost_fields(
    old: Fact, new: Fact, ids: Mapping[str, str], targets: Mapping[str, Any], before: Shown, after: Shown
) -> list[str]:
    """The fields of `old` that `new`, its import, does not reproduce."""
    lost = []
    for name in Fact.model_fields:
        was, now = getattr(old, name), getattr(new, name)
        if name in MAPPED_IDS:
            same = now == (ids.get(was) if was is not None else None)
        elif name in MAPPED_ID_LISTS:
            same = now == [ids.get(i) for i in was]
        elif name == "attachment_ids":
            same = len(now) == len(was) and after(now) == before(was)
        elif name == "source":
            same = said(now) == said(was)
        elif name in THE_TARGETS:
            same = now == targets[name]
        else:
            same = now == was
        if not same:
            lost.append(name)
    return lost


def unset_fields(memories: Sequence[Fact]) -> list[str]:
    """Fields no memory gives a value other than the default: a test user must set each, or a field
    the round trip drops would compare equal (default before, default after)."""
    defaults = {name: field.get_default(call_default_factory=True) for name, field in Fact.model_fields.items()}
    return [
        name
        for name in Fact.model_fields
        if name not in CURRENT_ONLY and all(getattr(m, name) == defaults[name] for m in memories)
    ]


def lost_by_text(
    before: Mapping[str, Fact], after: Mapping[str, Fact], targets: Mapping[str, Any], shown: Callable[[str], Shown]
) -> dict[str, list[str]]:
    """For each memory (by its text, unique in these tests), the fields its import lost; `shown(tenant)`
    reads a tenant's attachments."""
    ids = {old.id: after[text].id for text, old in before.items() if text in after}
    source, target = shown(before_tenant(before)), shown(str(targets["tenant_id"]))
    return {text: lost_fields(old, after[text], ids, targets, source, target) for text, old in before.items()}


def before_tenant(memories: Mapping[str, Fact]) -> str:
    return next(iter(memories.values())).tenant_id
