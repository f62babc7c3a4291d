"""`engram export`: every version of a user's memories as JSON Lines, every field an import writes back.

Format (version 3; docs/api.md, "Export and import"): a header line
`{"type": "engram-export", "version": 3, "user_id", "exported_at", "count"}`, then one memory version a
line (current ones and closed ones: replaced by a later version, or forgotten; the versions of one
memory together, oldest first) with the fields of EXPORTED, `attachments` ([{id, name, media_type,
description, size, checksum, content_base64?}]), `source` ({task_id, message_index, role, name, at, span,
via} or null) and `history` (the memory's events, on each of its versions; an import writes them back once)."""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from typing import Any, TextIO

from engram_client.cli.sources import EXPORT_TYPE
from engram_client.client import Engram
from engram_client.errors import NotFoundError
from engram_client.models import Memory

EXPORT_VERSION = 3
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
)


def export_user(client: Engram, user_id: str, out: TextIO, with_content: bool = True) -> int:
    """Write the header, then each version of each memory of the user; returns how many lines."""
    by_memory: dict[str, list[Memory]] = {}
    for version in client.list(user_id, versions="all"):
        by_memory.setdefault(version.id, []).append(version)
    memories = [v for versions in by_memory.values() for v in sorted(versions, key=lambda v: v.version)]
    header = {
        "type": EXPORT_TYPE,
        "version": EXPORT_VERSION,
        "user_id": user_id,
        "exported_at": datetime.now(UTC).isoformat(),
        "count": len(memories),
    }
    out.write(json.dumps(header) + "\n")
    task_times: dict[str, str | None] = {}
    histories: dict[str, list[dict[str, Any]]] = {}
    for memory in memories:
        record = memory_record(client, memory, with_content, task_times, histories)
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return len(memories)


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
