"""One DynamoDB table on disk: a snapshot plus an append-only log of the items changed since.

Rewriting a whole table per save costs in proportion to the table (seconds per save at 20,000
items); appending the items a save changed costs in proportion to the change. Files, under
<data_dir>/moto/dynamodb/:

    <table>.jsonl   the snapshot: {"engram_log_epoch": E} first, then one item per line
                    (DynamoDB's JSON wire format, binary as base64); a file without the epoch line
                    (saved before the log existed) is all items
    <table>.log     {"epoch": E} first, then one change per line: {"put": item} or {"delete": key}

Restore = the snapshot's items, then the log's changes in order, if the log's epoch is the
snapshot's. Compaction writes a new snapshot with a new epoch (to a temporary name, renamed), then
replaces the log with an empty one of that epoch: a crash between the two leaves a log of the old
epoch, which is ignored, rightly, since the new snapshot was read after every change in it. A log
line cut short by a crash (the last one) is skipped; the restore compacts, so later appends never
follow a torn line.
"""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

log = logging.getLogger("engram_tools.local")

Item = dict[str, Any]
_EPOCH = "engram_log_epoch"
_MIN_COMPACT_BYTES = 4 * 1024 * 1024  # below this a log is not worth a rewrite of its table


class TableFiles:
    """The snapshot and log of one table; not thread-safe (the snapshotter holds its lock)."""

    def __init__(
        self, folder: Path, table: str, write_atomic: Callable[[Path, bytes], None], encode: Callable[[object], str]
    ) -> None:
        self.snapshot = folder / f"{table}.jsonl"
        self.log = folder / f"{table}.log"
        self._write_atomic = write_atomic
        self._encode = encode
        self._epoch: str | None = None  # the epoch of the files as last written or read
        self._log_bytes = 0
        self._snapshot_bytes = 0

    def load(self) -> tuple[list[Item], list[tuple[str, Item]]]:
        """(the snapshot's items, the log's changes in order as ("put", item) or ("delete", key))."""
        items: list[Item] = []
        epoch: str | None = None
        if self.snapshot.exists():
            for line in self.snapshot.read_text(encoding="utf-8").splitlines():
                if not line.strip():
                    continue
                value = json.loads(line)
                if len(value) == 1 and isinstance(value.get(_EPOCH), str):
                    epoch = value[_EPOCH]
                else:
                    items.append(value)
        return items, self._load_log(epoch) if epoch is not None else []

    def _load_log(self, epoch: str) -> list[tuple[str, Item]]:
        if not self.log.exists():
            return []
        lines = self.log.read_bytes().split(b"\n")
        try:
            header = json.loads(lines[0])
        except ValueError:
            header = None
        if not isinstance(header, dict) or header.get("epoch") != epoch:
            return []  # written before the snapshot's compaction: the snapshot holds it all
        changes: list[tuple[str, Item]] = []
        for number, line in enumerate(lines[1:], start=2):
            if not line.strip():
                continue
            try:
                change = json.loads(line)
            except ValueError:
                change = None
            if not isinstance(change, dict) or len(change) != 1 or not ({"put", "delete"} & change.keys()):
                # Only a crash mid-append leaves this, and only at the end (the restore compacts).
                log.warning(
                    "%s: line %d is cut short; ignored with the %d after it", self.log, number, len(lines) - number
                )
                break
            ((kind, value),) = change.items()
            changes.append((kind, value))
        return changes

    def append(self, changes: list[tuple[str, Item]]) -> Path:
        """Appends `changes` (("put", item) or ("delete", key)) with one write; not fsynced. Returns the log's path."""
        if self._epoch is None:
            raise RuntimeError(f"{self.log}: append before the table was compacted once")
        data = "".join(json.dumps({kind: value}, default=self._encode) + "\n" for kind, value in changes).encode()
        with self.log.open("ab") as f:
            f.write(data)
        self._log_bytes += len(data)
        return self.log

    def compaction_due(self) -> bool:
        """Whether the log has outgrown its snapshot (rewriting then keeps the cost per change bounded)."""
        return self._epoch is None or self._log_bytes > max(_MIN_COMPACT_BYTES, self._snapshot_bytes)

    def compact(self, items: list[Item]) -> None:
        """Saves `items` (the whole table, read after every change logged so far) as the snapshot; empties the log."""
        epoch = uuid.uuid4().hex
        lines = [json.dumps({_EPOCH: epoch})] + [json.dumps(item, default=self._encode) for item in items]
        data = ("\n".join(lines) + "\n").encode("utf-8")
        self._write_atomic(self.snapshot, data)
        header = (json.dumps({"epoch": epoch}) + "\n").encode("utf-8")
        self._write_atomic(self.log, header)
        self._epoch, self._snapshot_bytes, self._log_bytes = epoch, len(data), 0
