"""Export a user's memories to JSONL and import files back, resumably and with bounded concurrency.

Import submits units in file order (the server keeps one FIFO queue per user, so a conversation is read
in order) and keeps at most `concurrency` tasks in flight; a unit counts as done once its task completed,
and done units are recorded in a state file beside the input so a rerun skips them."""

from __future__ import annotations

import base64
import hashlib
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO

from engram_client.cli.sources import EXPORT_TYPE, Unit
from engram_client.client import Engram
from engram_client.models import Task

DEFAULTS = {"memory_bank": "General", "importance": 0.5, "is_protected": False}


def export_user(client: Engram, user_id: str, out: TextIO, with_content: bool = True) -> int:
    """Write a header line, then one line per current memory with its history and attachments."""
    header = {"type": EXPORT_TYPE, "version": 1, "user_id": user_id, "exported_at": datetime.now(UTC).isoformat()}
    out.write(json.dumps(header) + "\n")
    count = 0
    for memory in client.list(user_id):
        record = memory.model_dump(mode="json", exclude={"score"})
        record["history"] = [h.model_dump(mode="json") for h in client.history(memory.id)]
        record["attachments"] = [_attachment_record(client, a.id, with_content) for a in memory.attachments]
        out.write(json.dumps(record, ensure_ascii=False) + "\n")
        count += 1
    return count


def _attachment_record(client: Engram, attachment_id: str, with_content: bool) -> dict[str, Any]:
    found = client.attachment(attachment_id)
    record = found.model_dump(mode="json", exclude={"download_url", "memory_ids"})
    if with_content and found.download_url:
        record["content_base64"] = base64.b64encode(client.download_attachment(attachment_id)).decode("ascii")
    return record


@dataclass
class ImportState:
    """Done unit indices of one input file (keyed by its SHA-256, so an edited file starts over)."""

    path: Path
    digest: str
    done: set[int] = field(default_factory=set)

    @classmethod
    def load(cls, source: Path) -> ImportState:
        digest = hashlib.sha256(source.read_bytes()).hexdigest()
        path = source.with_name(source.name + ".engram-import")
        if path.is_file():
            saved = json.loads(path.read_text())
            if saved.get("sha256") == digest:
                return cls(path, digest, set(saved.get("done", [])))
        return cls(path, digest)

    def mark(self, index: int) -> None:
        self.done.add(index)
        self.path.write_text(json.dumps({"sha256": self.digest, "done": sorted(self.done)}))


@dataclass
class ImportReport:
    units: int = 0
    skipped: int = 0
    memories: int = 0
    failed: list[str] = field(default_factory=list)


@dataclass
class Importer:
    client: Engram
    infer: bool = True
    concurrency: int = 4
    on_done: Callable[[], None] = lambda: None
    _attachments: dict[str, str] = field(default_factory=dict)  # exported id -> id in this deployment
    _patches: list[tuple[int, str, dict[str, Any]]] = field(default_factory=list)  # unit, memory, fields

    def run(self, units: list[Unit], state: ImportState) -> ImportReport:
        report = ImportReport(units=len(units))
        # Attachments first, and field edits last: neither then writes while extraction is running
        # (moto, the local stand-in for DynamoDB, is not safe against that; on AWS it only saves contention).
        for index, unit in enumerate(units):
            if index not in state.done and unit.memory is not None:
                for record in unit.memory.get("attachments", []):
                    self._attachment(record)
        window: deque[tuple[int, Unit, str]] = deque()
        for index, unit in enumerate(units):
            if index in state.done:
                report.skipped += 1
                self.on_done()
                continue
            window.append((index, unit, self._submit(unit).task_id))
            if len(window) >= self.concurrency:
                self._finish(*window.popleft(), state, report)
        while window:
            self._finish(*window.popleft(), state, report)
        for index, memory_id, fields in self._patches:
            self.client.update(memory_id, **fields)
            state.mark(index)
        return report

    def _submit(self, unit: Unit) -> Task:
        if unit.memory is None:
            return self.client.add(
                unit.messages,
                user_id=unit.user_id,
                metadata=unit.metadata,
                infer=self.infer,
                deduplicate=self.infer,  # stored as given means every message, near-duplicates too
                wait=False,
            )
        memory = unit.memory
        return self.client.add(
            {"role": "user", "content": memory["memory"]},
            user_id=unit.user_id,
            agent_id=memory.get("agent_id"),
            run_id=memory.get("run_id"),
            metadata=memory.get("metadata") or {},
            infer=False,
            deduplicate=False,
            attachments=[{"attachment_id": self._attachment(a)} for a in memory.get("attachments", [])],
            wait=False,
        )

    def _attachment(self, record: dict[str, Any]) -> str:
        if record["id"] not in self._attachments:
            data = base64.b64decode(record.get("content_base64") or "")
            created = self.client.upload_attachment(
                record["name"], record["media_type"], data, record.get("description")
            )
            self._attachments[record["id"]] = created.attachment_id
        return self._attachments[record["id"]]

    def _finish(self, index: int, unit: Unit, task_id: str, state: ImportState, report: ImportReport) -> None:
        task = self.client.wait_for_task(task_id, raise_on_failure=False)
        if task.status != "completed":
            report.failed.append(f"unit {index}: task {task_id} {task.status}: {task.error}")
            self.on_done()
            return
        added = [r for r in task.results if r.event == "ADD"]
        report.memories += len(added)
        if unit.memory is not None and added:
            # Bank, importance and protection are not part of an add: set them when they differ.
            memory = unit.memory
            changed = {k: memory[k] for k, default in DEFAULTS.items() if k in memory and memory[k] != default}
            if changed:  # the unit is done once they are set
                self._patches.append((index, added[0].id, changed))
                self.on_done()
                return
        state.mark(index)
        self.on_done()
