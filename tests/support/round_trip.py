"""What an export followed by an import must give back: every field of the stored memory model
(`Fact.model_fields`, so a field added later is compared too), and of the graph's relations and
entities (`Relation.model_fields`, `Entity.model_fields`), with the ids and the target mapped."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from pydantic import BaseModel

from engram.domain.graph import USER_ENTITY_TYPE, Entity, Relation
from engram.domain.models import Fact, HistoryEvent, MemorySource

MAPPED_IDS = {"id", "episode_id"}  # memory ids: the imported memory's own
MAPPED_ID_LISTS = {"outdated_by", "summarized_from"}
THE_TARGETS = {"tenant_id", "user_id", "embedding_model"}  # where it was imported to, and its embedder

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
        elif name == "statements":  # the memory that outdated one is the target's
            same = now == [s.model_copy(update={"outdated_by": ids.get(s.outdated_by or "")}) for s in was]
        elif name in THE_TARGETS:
            same = now == targets[name]
        else:
            same = now == was
        if not same:
            lost.append(name)
    return lost


def unset_fields(items: Sequence[BaseModel], model: type[BaseModel] = Fact) -> list[str]:
    """Fields no item (memory, relation, entity) gives a value other than the default: a test user must
    set each, or a field the round trip drops would compare equal (default before, default after)."""
    fields = model.model_fields
    defaults = {name: field.get_default(call_default_factory=True) for name, field in fields.items()}
    return [name for name in fields if all(getattr(m, name) == defaults[name] for m in items)]


def _named(name: str, user_id: str, targets: Mapping[str, Any]) -> str:
    """An entity's name in the target: the user's own entity is named by the user id."""
    return str(targets["user_id"]) if name == user_id else name


EntityKey = tuple[str, str]  # an entity by its type and its name in the target


def entity_key(entity: Entity, targets: Mapping[str, Any] | None = None) -> EntityKey:
    return (entity.type, _named(entity.name, entity.user_id, targets) if targets else entity.name)


def lost_entity_fields(old: Entity, new: Entity, targets: Mapping[str, Any]) -> list[str]:
    """The fields of the exported entity `old` its import `new` does not reproduce; the id is the
    target's (the user's own entity's is the target user's)."""
    lost = []
    for name in Entity.model_fields:
        was, now = getattr(old, name), getattr(new, name)
        if name == "id":
            same = now == f"user-{targets['user_id']}" if old.type == USER_ENTITY_TYPE else bool(now)
        elif name == "name":
            same = now == _named(was, old.user_id, targets)
        elif name in ("tenant_id", "user_id"):
            same = now == targets[name]
        else:
            same = now == was
        if not same:
            lost.append(name)
    return lost


RelationKey = tuple[str, str, str, str]  # source, relation, destination (names in the target), valid_from


def relation_key(relation: Relation, targets: Mapping[str, Any] | None = None) -> RelationKey:
    def name(n: str) -> str:
        return _named(n, relation.user_id, targets) if targets else n

    ends = (name(relation.source), relation.relation, name(relation.destination))
    return (*ends, relation.valid_from.isoformat())


def lost_relation_fields(
    old: Relation,
    new: Relation,
    relation_ids: Mapping[str, str],
    entity_ids: Mapping[str, str],
    memory_ids: Mapping[str, str],
    targets: Mapping[str, Any],
) -> list[str]:
    """The fields of the exported relation `old` its import `new` does not reproduce: ids of relations,
    entities and memories mapped to the target's; the task is the import's own."""
    lost = []
    for name in Relation.model_fields:
        was, now = getattr(old, name), getattr(new, name)
        if name in ("id", "refined_from"):
            same = now == (relation_ids.get(was) if was is not None else None)
        elif name in ("source_entity_id", "destination_entity_id"):
            same = now == entity_ids.get(was)
        elif name in ("source", "destination"):
            same = now == _named(was, old.user_id, targets)
        elif name == "memory_ids":
            same = now == [memory_ids.get(m) for m in was]
        elif name in ("tenant_id", "user_id"):
            same = now == targets[name]
        elif name == "task_id":
            same = bool(now)  # the import task's (the exported one is not in the target)
        else:
            same = now == was
        if not same:
            lost.append(name)
    return lost


def graph_lost(
    before: tuple[Sequence[Entity], Sequence[Relation]],
    after: tuple[Sequence[Entity], Sequence[Relation]],
    memory_ids: Mapping[str, str],
    targets: Mapping[str, Any],
) -> dict[str, list[str]]:
    """Per exported entity and relation (by its key), what the import lost; missing ones lose all."""
    old_entities = {entity_key(e): e for e in before[0]}
    new_entities = {entity_key(e): e for e in after[0]}
    old_relations = {relation_key(r): r for r in before[1]}
    new_relations = {relation_key(r): r for r in after[1]}
    entity_ids: dict[str, str] = {}
    lost: dict[str, list[str]] = {}
    for key, old in old_entities.items():
        new = new_entities.get(entity_key(old, targets))
        lost[f"entity {key}"] = lost_entity_fields(old, new, targets) if new else ["(missing)"]
        if new:
            entity_ids[old.id] = new.id
    pairs = {key: new_relations.get(relation_key(old, targets)) for key, old in old_relations.items()}
    relation_ids = {old_relations[key].id: new.id for key, new in pairs.items() if new}
    for key, old in old_relations.items():
        new = pairs[key]
        lost[f"relation {key}"] = (
            lost_relation_fields(old, new, relation_ids, entity_ids, memory_ids, targets) if new else ["(missing)"]
        )
    if len(after[0]) != len(before[0]) or len(after[1]) != len(before[1]):
        counts = [f"{len(entities)} entities, {len(relations)} relations" for entities, relations in (before, after)]
        lost["counts"] = [f"{counts[0]} before, {counts[1]} after"]
    return lost


Key = tuple[str, int]  # a memory version by its text and version number (unique in these tests)


def by_version(versions: Sequence[Fact]) -> dict[Key, Fact]:
    return {(f.text, f.version): f for f in versions}


def histories_lost(
    before: Mapping[Key, Fact],
    after: Mapping[Key, Fact],
    targets: Mapping[str, Any],
    history: Callable[[str, str], Sequence[HistoryEvent]],
) -> dict[str, list[str]]:
    """For each memory (by its exported id), what its imported history lost; `history(tenant, id)`
    reads one memory's events."""
    ids = {old.id: after[key].id for key, old in before.items() if key in after}
    moved = attachment_ids(before, after)
    tenant = next(iter(before.values())).tenant_id
    return {
        old: lost_history(history(tenant, old), history(str(targets["tenant_id"]), new), ids, targets, moved)
        for old, new in ids.items()
    }


def lost_by_version(
    before: Mapping[Key, Fact], after: Mapping[Key, Fact], targets: Mapping[str, Any], shown: Callable[[str], Shown]
) -> dict[Key, list[str]]:
    """For each memory version, the fields its import lost; `shown(tenant)` reads a tenant's attachments."""
    ids = {old.id: after[key].id for key, old in before.items() if key in after}
    tenant = next(iter(before.values())).tenant_id
    source, target = shown(tenant), shown(str(targets["tenant_id"]))
    return {key: lost_fields(old, after[key], ids, targets, source, target) for key, old in before.items()}


def attachment_ids(before: Mapping[Key, Fact], after: Mapping[Key, Fact]) -> dict[str, str]:
    """Each exported attachment id and the id it was uploaded under in the target."""
    return {
        old: new
        for key, fact in before.items()
        for old, new in zip(fact.attachment_ids, after[key].attachment_ids, strict=False)
    }


def lost_history(
    before: Sequence[HistoryEvent],
    after: Sequence[HistoryEvent],
    ids: Mapping[str, str],
    targets: Mapping[str, Any],
    attachments: Mapping[str, str],
) -> list[str]:
    """What the imported memory's history lost of the exported one's (every field of
    `HistoryEvent.model_fields`), which it must hold in order and then the import's own ADD."""
    if len(after) != len(before) + 1:
        return [f"{len(before)} events before, {len(after)} after (with the import's ADD)"]
    imported = after[-1]
    lost = [] if (imported.event, imported.actor, imported.note) == ("ADD", "import", "imported") else ["the ADD"]
    for n, (old, new) in enumerate(zip(before, after, strict=False)):
        for name in HistoryEvent.model_fields:
            was, now = getattr(old, name), getattr(new, name)
            if name == "id":
                same = bool(now) and now != was  # the target's own id of the event
            elif name == "memory_id":
                same = now == ids[was]
            elif name in ("tenant_id", "user_id"):
                same = now == targets[name]
            elif name in ("attachments_added", "attachments_removed"):
                same = now == [attachments.get(a, a) for a in was]
            else:
                same = now == was
            if not same:
                lost.append(f"event {n}: {name}")
    return lost
