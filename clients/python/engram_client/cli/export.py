"""`engram export`: every version of a user's memories as JSON Lines, every field an import writes back.

Format (version 5; docs/api.md, "Export and import"): a header line
`{"type": "engram-export", "version": 4, "user_id", "exported_at", "count", "relations"}`, then one memory version a
line (current ones and closed ones: replaced by a later version, or forgotten; the versions of one
memory together, oldest first) with the fields of EXPORTED, `attachments` ([{id, name, media_type,
description, size, checksum, content_base64?}]), `source` ({task_id, message_index, role, name, at, span,
via} or null) and `history` (the memory's events, on each of its versions; an import writes them back once);
then the user's graph relations, current and closed, one a line: `{"type": "relation", id, relation,
source, destination, source_entity, destination_entity ({id, name, type, aliases, created_at,
updated_at}), valid_from, valid_to, memory_ids, task_id, closed_by, refined_from}`."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from typing import Any, TextIO

from engram_client.cli.sources import EXPORT_TYPE
from engram_client.client import Engram
from engram_client.errors import NotFoundError
from engram_client.models import Entity, GraphRelation, Memory

EXPORT_VERSION = 5
RELATION_TYPE = "relation"  # a graph relation's line (a memory's line has no type)
EXPORTED = (
    "id",
    "user_id",
    "agent_id",
    "run_id",
    "memory",
    "kind",
    "memory_bank",
    "importance",
    "fact_key",
    "fact_value",
    "is_protected",
    "metadata",
    "valid_from",
    "valid_to",
    "created_at",
    "updated_at",
    "expires_at",
    "version",
    "last_accessed_at",
    "access_count",
    "episode_id",  # ids of other memories of the export: the import translates them
    "outdated_by",
    "is_summarized",
    "summarized_from",
    "statements",  # [{subject, attribute, value, polarity, single, event_time, outdated_by}]; outdated_by: an id too
)


def export_user(client: Engram, user_id: str, out: TextIO, with_content: bool = True) -> int:
    """Write the header, then each version of each memory of the user; returns how many lines."""
    by_memory: dict[str, list[Memory]] = {}
    for version in client.list(user_id, versions="all"):
        by_memory.setdefault(version.id, []).append(version)
    memories = [v for versions in by_memory.values() for v in sorted(versions, key=lambda v: v.version)]
    entities, relations = _graph(client, user_id)
    header = {
        "type": EXPORT_TYPE,
        "version": EXPORT_VERSION,
        "user_id": user_id,
        "exported_at": datetime.now(UTC).isoformat(),
        "count": len(memories),
        "relations": len(relations),
    }
    out.write(json.dumps(header) + "\n")
    task_times: dict[str, str | None] = {}
    histories: dict[str, list[dict[str, Any]]] = {}
    for memory in memories:
        record = memory_record(client, memory, with_content, task_times, histories)
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    for relation in relations:
        out.write(json.dumps(relation_record(relation, entities), ensure_ascii=False) + "\n")
    return len(memories)


def _graph(client: Engram, user_id: str) -> tuple[dict[str, Entity], list[GraphRelation]]:
    """The user's entities (by id) and every relation, closed ones too; none when graph memory is off."""
    entities: dict[str, Entity] = {}
    relations: list[GraphRelation] = []
    cursors: tuple[str | None, str | None] = (None, None)
    first = True
    try:
        while first or any(cursors):
            # One call pages both lists; a list whose cursor ran out is read from its start again: skipped.
            page = client.graph(
                user_id, limit=200, entity_cursor=cursors[0], relation_cursor=cursors[1], relations="all"
            )
            if first or cursors[0]:
                entities |= {e.id: e for e in page.entities}
            if first or cursors[1]:
                relations += page.relations
            cursors, first = (page.next_entity_cursor, page.next_relation_cursor), False
    except NotFoundError:  # graph memory is off on that deployment
        return {}, []
    return entities, relations


def relation_record(relation: GraphRelation, entities: dict[str, Entity]) -> dict[str, Any]:
    dumped = relation.model_dump(mode="json", exclude={"score", "source_entity_id", "destination_entity_id"})
    ends = {"source_entity": relation.source_entity_id, "destination_entity": relation.destination_entity_id}
    for end, entity_id in ends.items():
        entity = entities[str(entity_id)]
        dumped[end] = entity.model_dump(
            mode="json", include={"id", "name", "type", "aliases", "created_at", "updated_at"}
        )
    return {"type": RELATION_TYPE, **dumped}


def memory_record(
    client: Engram,
    memory: Memory,
    with_content: bool,
    task_times: dict[str, str | None],
    histories: dict[str, list[dict[str, Any]]],
) -> dict[str, Any]:
    dumped = memory.model_dump(mode="json")
    record: dict[str, Any] = {name: dumped.get(name) for name in EXPORTED}
    record["attachments"] = [_attachment_record(client, a.id, with_content) for a in memory.attachments]
    record["source"] = _source(client, memory, task_times)
    if memory.id not in histories:  # one memory's versions share it
        histories[memory.id] = [h.model_dump(mode="json") for h in client.history(memory.id)]
    record["history"] = histories[memory.id]
    return record


def _source(client: Engram, memory: Memory, task_times: dict[str, str | None]) -> dict[str, Any] | None:
    """Where the memory came from: its task and message, the message's role when the server recorded
    it, and when the message arrived (the task's creation; an imported memory keeps the original's)."""
    source = memory.source
    if not source or not source.get("task_id"):
        return None
    task_id = str(source["task_id"])
    at = source.get("at")
    if at is None:
        if task_id not in task_times:
            try:
                task_times[task_id] = client.task(task_id).model_dump(mode="json").get("created_at")
            except NotFoundError:  # expired, or forgotten with a delete-all
                task_times[task_id] = None
        at = task_times[task_id]
    kept = {name: source.get(name) for name in ("message_index", "role", "name", "span")}
    return {"task_id": task_id, **kept, "at": at, "via": source.get("via", "add")}


def _attachment_record(client: Engram, attachment_id: str, with_content: bool) -> dict[str, Any]:
    found = client.attachment(attachment_id)
    record = found.model_dump(mode="json", exclude={"download_url", "memory_ids", "next_cursor"})
    if with_content and found.download_url:
        record["content_base64"] = base64.b64encode(client.download_attachment(attachment_id)).decode("ascii")
    return record
