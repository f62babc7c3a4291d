"""`engram import`: files back into Engram, resumably and with bounded concurrency.

An export (engram-export, version 1, 2 or 3) goes through `POST /v1/memories/import` in batches: each
memory is written as it was (bank, importance, protection, times, metadata, attachments), without
extraction, and the server skips a memory the target user holds already, so the counts it reports
(added / skipped) are exact. Messages and LoCoMo conversations go through adds, in file order (the
server keeps one FIFO queue per user), with at most `concurrency` tasks in flight.

Finished parts are recorded in `<file>.engram-import`, per target (server URL, API key hash and
target user), so a rerun into the same target resumes and one into another target starts over."""

from __future__ import annotations

import base64
import hashlib
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engram_client.cli.sources import Unit
from engram_client.client import Engram

IMPORT_BATCH = 500  # memories per import request (the server's limit)
RELATION_BATCH = 1000  # graph relations per import request (the server's limit)
IMPORT_BATCH_BYTES = 4 * 1024 * 1024  # and well under the 6 MiB request body limit
_NOT_SENT = ("history", "attachments", "user_id", "score")


def target_key(url: str, api_key: str | None, user_id: str | None) -> str:
    """Who an import writes to: the server, the tenant (by the API key's hash: the key itself is never
    written down) and the user (--user-id, or the users the file names)."""
    key_hash = hashlib.sha256((api_key or "").encode("utf-8")).hexdigest()[:16]
    return f"{url.rstrip('/')} key:{key_hash} user:{user_id or '(as in the file)'}"


@dataclass
class ImportState:
    """Done parts of one input file for one target (the file is keyed by its SHA-256, so an edited
    file starts over), with their counts and the attachments uploaded for it."""

    path: Path
    digest: str
    target: str
    done: dict[int, dict[str, int]] = field(default_factory=dict)
    attachments: dict[str, str] = field(default_factory=dict)  # exported id -> id in the target
    others: dict[str, Any] = field(default_factory=dict)  # the other targets' states, kept as they are

    @classmethod
    def load(cls, source: Path, target: str) -> ImportState:
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        path = source.with_name(source.name + ".engram-import")
        saved: dict[str, Any] = {}
        if path.is_file():
            loaded = json.loads(path.read_text())
            if isinstance(loaded, dict) and loaded.get("sha256") == digest and isinstance(loaded.get("targets"), dict):
                saved = loaded["targets"]
        mine = saved.pop(target, {})
        done = {int(k): dict(v) for k, v in mine.get("done", {}).items()}
        return cls(path, digest, target, done, dict(mine.get("attachments", {})), saved)

    def mark(self, index: int, counts: dict[str, int] | None = None) -> None:
        self.done[index] = counts or {}
        self.save()

    def save(self) -> None:
        mine = {"done": {str(k): v for k, v in sorted(self.done.items())}, "attachments": self.attachments}
        text = json.dumps({"sha256": self.digest, "targets": {**self.others, self.target: mine}})
        partial = self.path.with_name(self.path.name + ".tmp")
        partial.write_text(text)
        partial.replace(self.path)  # a crash mid-write leaves the previous state, never half of one


@dataclass
class ImportReport:
    parts: int = 0
    parts_done_before: int = 0
    memories: int = 0  # in the file
    added: int = 0  # in this run
    skipped: int = 0  # in this run: held by the target already
    relations: int = 0  # graph relations in the file
    relations_added: int = 0  # in this run
    relations_skipped: int = 0  # in this run: held by the target already (or graph memory off there)
    failed: list[str] = field(default_factory=list)


def export_batches(units: list[Unit]) -> list[list[Unit]]:
    """Consecutive exported memories of one user, up to IMPORT_BATCH of them and IMPORT_BATCH_BYTES;
    the versions of one memory stay in one batch (the server tells the memory from its earlier
    versions within a request)."""
    batches: list[list[Unit]] = []
    size = 0
    for unit in units:
        length = len(json.dumps(unit.memory, ensure_ascii=False).encode("utf-8"))
        last = batches[-1] if batches else None
        fits = last is not None and len(last) < IMPORT_BATCH and size + length <= IMPORT_BATCH_BYTES
        if last is not None and _same_memory(last[-1], unit):
            last.append(unit)
            size += length
        elif last is not None and fits and last[0].user_id == unit.user_id:
            last.append(unit)
            size += length
        else:
            batches.append([unit])
            size = length
    return batches


def relation_batches(units: list[Unit]) -> list[list[Unit]]:
    """Consecutive exported relations of one user, up to RELATION_BATCH of them and IMPORT_BATCH_BYTES."""
    batches: list[list[Unit]] = []
    size = 0
    for unit in units:
        length = len(json.dumps(unit.relation, ensure_ascii=False).encode("utf-8"))
        last = batches[-1] if batches else None
        if (
            last is not None
            and len(last) < RELATION_BATCH
            and size + length <= IMPORT_BATCH_BYTES
            and (last[0].user_id == unit.user_id)
        ):
            last.append(unit)
            size += length
        else:
            batches.append([unit])
            size = length
    return batches


def _last_version(batch: list[Unit], index: int) -> bool:
    """Whether the unit is its memory's last version in the batch (the versions of one memory are
    consecutive and never split across batches)."""
    return index + 1 == len(batch) or not _same_memory(batch[index], batch[index + 1])


def _same_memory(a: Unit, b: Unit) -> bool:
    ids = [(u.memory or {}).get("id") for u in (a, b)]
    return a.user_id == b.user_id and ids[0] is not None and ids[0] == ids[1]


@dataclass
class Importer:
    client: Engram
    infer: bool = True
    concurrency: int = 4
    on_done: Callable[[int], None] = lambda n: None  # n units finished

    def run(self, units: list[Unit], state: ImportState) -> ImportReport:
        if units and all(u.memory is not None or u.relation is not None for u in units):
            memories = export_batches([u for u in units if u.memory is not None])
            return self._run_export(memories + relation_batches([u for u in units if u.relation is not None]), state)
        return self._run_messages(units, state)

    # --- an export: POST /v1/memories/import ---------------------------------------------------
    def _run_export(self, batches: list[list[Unit]], state: ImportState) -> ImportReport:
        # Relations come last: the memories they link are named by ids the import derives, in any order.
        report = ImportReport(parts=len(batches))
        report.memories = sum(1 for b in batches for u in b if u.memory is not None)
        report.relations = sum(1 for b in batches for u in b if u.relation is not None)
        window: deque[tuple[int, list[Unit], str]] = deque()
        for index, batch in enumerate(batches):
            if index in state.done:
                report.parts_done_before += 1
                self.on_done(len(batch))
                continue
            if batch[0].relation is not None:
                relations = [u.relation or {} for u in batch]
                task = self.client.import_memories([], user_id=batch[0].user_id, relations=relations, wait=False)
            else:
                memories = [
                    self._importable(u.memory or {}, state, _last_version(batch, i)) for i, u in enumerate(batch)
                ]
                task = self.client.import_memories(memories, user_id=batch[0].user_id, wait=False)
            window.append((index, batch, task.task_id))
            if len(window) >= self.concurrency:
                self._finish_export(*window.popleft(), state, report)
        while window:
            self._finish_export(*window.popleft(), state, report)
        return report

    def _importable(self, memory: dict[str, Any], state: ImportState, last: bool) -> dict[str, Any]:
        """The memory as the import route takes it: attachments uploaded (once per target) and named by
        their new ids; the history once, with the memory's last version (it is the memory's, not a
        version's). The memory's own id goes along: the server skips it when the target user still
        holds that very memory, and it is how other memories refer to it."""
        sent = {k: v for k, v in memory.items() if k not in _NOT_SENT}
        sent["attachments"] = [
            {"id": self._attachment(a, state), "name": a.get("name"), "media_type": a.get("media_type")}
            for a in memory.get("attachments", [])
        ]
        if last:
            moved = state.attachments  # ids the history names of attachments uploaded here; others as they were
            sent["history"] = [
                {
                    **event,
                    "attachments_added": [moved.get(a, a) for a in event.get("attachments_added", [])],
                    "attachments_removed": [moved.get(a, a) for a in event.get("attachments_removed", [])],
                }
                for event in memory.get("history") or []
            ]
        return sent

    def _attachment(self, record: dict[str, Any], state: ImportState) -> str:
        if record["id"] not in state.attachments:
            data = base64.b64decode(record.get("content_base64") or "")
            created = self.client.upload_attachment(
                record["name"], record["media_type"], data, record.get("description")
            )
            state.attachments[record["id"]] = created.attachment_id
            state.save()
        return state.attachments[record["id"]]

    def _finish_export(
        self, index: int, batch: list[Unit], task_id: str, state: ImportState, report: ImportReport
    ) -> None:
        task = self.client.wait_for_task(task_id, raise_on_failure=False)
        self.on_done(len(batch))
        if task.status != "completed":
            report.failed.append(f"memories {index}: task {task_id} {task.status}: {task.error}")
            return
        if batch[0].relation is not None:
            counts = {name: task.counts.get(name, 0) for name in ("relations_added", "relations_skipped")}
            report.relations_added += counts["relations_added"]
            report.relations_skipped += counts["relations_skipped"]
        else:
            counts = {"added": task.counts.get("added", 0), "skipped": task.counts.get("skipped", 0)}
            report.added += counts["added"]
            report.skipped += counts["skipped"]
        state.mark(index, counts)

    # --- messages and conversations: one add per unit -------------------------------------------
    def _run_messages(self, units: list[Unit], state: ImportState) -> ImportReport:
        report = ImportReport(parts=len(units), memories=0)
        added: set[str] = set()  # ids: tasks run together may each list the memories of the run
        window: deque[tuple[int, str]] = deque()
        for index, unit in enumerate(units):
            if index in state.done:
                report.parts_done_before += 1
                self.on_done(1)
                continue
            task = self.client.add(
                unit.messages,
                user_id=unit.user_id,
                metadata=unit.metadata,
                infer=self.infer,
                deduplicate=self.infer,  # stored as given means every message, near-duplicates too
                wait=False,
            )
            window.append((index, task.task_id))
            if len(window) >= self.concurrency:
                self._finish_add(*window.popleft(), state, report, added)
        while window:
            self._finish_add(*window.popleft(), state, report, added)
        report.added = len(added)
        return report

    def _finish_add(self, index: int, task_id: str, state: ImportState, report: ImportReport, added: set[str]) -> None:
        task = self.client.wait_for_task(task_id, raise_on_failure=False)
        self.on_done(1)
        if task.status != "completed":
            report.failed.append(f"part {index}: task {task_id} {task.status}: {task.error}")
            return
        mine = {r.id for r in task.results if r.event == "ADD"}
        state.mark(index, {"added": len(mine - added)})
        added |= mine
