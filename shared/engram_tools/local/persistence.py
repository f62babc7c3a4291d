"""Keep moto's state across restarts: DynamoDB items, S3 objects and queued SQS messages on disk.

moto holds everything in memory. A snapshot thread writes what changed about once per second and
once more on a clean shutdown, and the local front has `flush` called (through moto's process,
moto_process.py) before it answers a request that changed something, so what was acknowledged
survives the process being killed. A table (and a queue) is a snapshot plus an append-only log of the items
changed since (table_log.py): a save appends the current state of each item written since the last
save, so it costs what changed, not the table; the snapshot thread compacts a log that outgrew its
snapshot (never a flush, so no request waits for a rewrite). Other files are written to a temporary
name and renamed, so a crash leaves the previous complete file. Everything is fsynced by the
thread's next snapshot (a flush does not wait for the disk), so the machine going down loses at most
about a second.

Queues are read first; then the changes seen so far are taken from the tracker, the tables saved
in the order given (the tasks table first), and the queues written last. The worker writes memories,
then marks the task done, then deletes its message, each request seen by the tracker before it is
answered: so a message missing from the queue as read was deleted before the take, and all its
task's writes are in what this save writes, before the queue; a crash before the queue is written
leaves the message saved, processed again after a restart (idempotently). The thread's fsyncs go
tables first, queues last, for the same reason. So no accepted add is lost.
Layout under <data_dir>/moto/:

    dynamodb/<table>.jsonl          snapshot: an epoch line, then one item per line, DynamoDB's JSON
                                    wire format (binary as base64)
    dynamodb/<table>.log            changes since that snapshot: {"put": item} or {"delete": key}
    s3/<bucket>/manifest.json       key -> sha256, etag, content type, metadata (current versions)
    s3/<bucket>/objects/<sha256>    object bodies, content-addressed, so unchanged ones are not rewritten
    sqs/<queue>.jsonl, .log         the same for messages not yet deleted, in order (id, body, group,
                                    dedup id, attributes): {"put": message} or {"delete": {"id": id}}

What changed is learnt from the requests moto serves (change_tracker.py). Queues are compared by
message ids instead, which is cheap. Tables and queues are read from moto in-process (MotoState); S3
goes through its API. Restore runs after provisioning and before anything is served, and compacts
every table (a fresh log each).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import threading
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from engram_tools.local.change_tracker import ChangeTracker
from engram_tools.local.group_commit import GroupCommit
from engram_tools.local.moto_server import MotoState
from engram_tools.local.table_log import TableFiles

if TYPE_CHECKING:
    from mypy_boto3_s3.client import S3Client
    from mypy_boto3_sqs.client import SQSClient

log = logging.getLogger("engram_tools.local")

_SAVE_ERRORS = (ClientError, BotoCoreError, OSError)
_SPACING = 10  # seconds between saves per second a save took


def write_atomic(path: Path, data: bytes, sync: bool = True) -> None:
    """Replace `path` with `data` so that a crash leaves either the old or the new file, whole.
    Without `sync` the data is in the OS's cache only: safe from the process dying, not the machine."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    with tmp.open("wb") as f:
        f.write(data)
        f.flush()
        if sync:
            os.fsync(f.fileno())
    os.replace(tmp, path)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


class Snapshotter:
    def __init__(
        self,
        data_dir: Path,
        tables: list[str],
        buckets: list[str],
        queues: dict[str, str],  # name -> URL
        clients: tuple[S3Client, SQSClient],
        state: MotoState,
        tracker: ChangeTracker,
        interval_s: float = 1.0,
    ) -> None:
        self._dir = data_dir / "moto"
        self._tables, self._buckets, self._queues = tables, buckets, queues
        self._s3, self._sqs = clients
        self._state = state
        self._tracker = tracker
        self._interval = interval_s
        self._lock = threading.Lock()  # one snapshot at a time (the thread and the final one)
        self._flush = GroupCommit(self._save_unsynced)
        self._sync = True  # set by each snapshot, under _lock
        self._unsynced: set[Path] = set()  # written without fsync, synced by the next synced snapshot
        self._queue_ids: dict[str, set[str]] = {}  # the messages on disk, by id
        self._queue_files = {q: TableFiles(self._dir / "sqs", q, self._write, _json_bytes) for q in queues}
        folder = self._dir / "dynamodb"
        self._files = {t: TableFiles(folder, t, self._write, _json_bytes) for t in tables}
        self._restored = False  # never save over the files before they were loaded
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # --- restore -------------------------------------------------------------------------------

    def restore(self) -> dict[str, int]:
        """Loads every saved table, bucket and queue into moto. Returns counts per resource."""
        counts: dict[str, int] = {}
        for table in self._tables:
            if self._files[table].snapshot.exists():
                counts[table] = self._restore_table(table)
        for bucket in self._buckets:
            path = self._dir / "s3" / bucket / "manifest.json"
            if path.exists():
                counts[bucket] = self._restore_bucket(bucket, path)
        for name, url in self._queues.items():
            legacy = self._dir / "sqs" / f"{name}.json"  # saved whole, before the log
            if self._queue_files[name].snapshot.exists():
                counts[name] = self._restore_queue(url, self._saved_messages(name))
            elif legacy.exists():
                counts[name] = self._restore_queue(url, json.loads(legacy.read_text(encoding="utf-8")))
        self._tracker.take()  # the restore's own writes are what is on disk already
        self._restored = True
        with self._lock:
            self._sync = True
            for table in self._tables:  # a fresh log each, none after a torn line
                self._compact(table)
            for name in self._queues:
                self._write_queue(name, *self._read_queue(name, whole=True))
        return counts

    def _restore_table(self, table: str) -> int:
        items, changes = self._files[table].load()
        self._state.put_items(table, items)
        for kind, value in changes:
            if kind == "put":
                self._state.put_items(table, [value])
            else:
                self._state.delete_item(table, value)
        return len(self._state.table_items(table)) if changes else len(items)

    def _restore_bucket(self, bucket: str, path: Path) -> int:
        manifest: dict[str, dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))
        for key, entry in manifest.items():
            body = (path.parent / "objects" / entry["sha256"]).read_bytes()
            self._s3.put_object(
                Bucket=bucket,
                Key=key,
                Body=body,
                ContentType=entry.get("content_type") or "binary/octet-stream",
                Metadata=entry.get("metadata") or {},
            )
        return len(manifest)

    def _saved_messages(self, name: str) -> list[dict[str, Any]]:
        records, changes = self._queue_files[name].load()
        messages = {m["id"]: m for m in records}  # in order: sends are logged oldest first
        for kind, value in changes:
            if kind == "put":
                messages[value["id"]] = value
            else:
                messages.pop(value["id"], None)
        return list(messages.values())

    def _restore_queue(self, url: str, messages: list[dict[str, Any]]) -> int:
        for message in messages:
            params: dict[str, Any] = {"QueueUrl": url, "MessageBody": message["body"]}
            if message.get("group_id"):
                params["MessageGroupId"] = message["group_id"]
            if message.get("deduplication_id"):
                params["MessageDeduplicationId"] = message["deduplication_id"]
            if message.get("attributes"):
                params["MessageAttributes"] = {k: _attribute_in(v) for k, v in message["attributes"].items()}
            self._sqs.send_message(**params)
        return len(messages)

    # --- save ----------------------------------------------------------------------------------

    def snapshot(self, everything: bool = False, sync: bool = True) -> None:
        """Saves what changed since the last snapshot (everything: all of it); `sync`: fsync each file."""
        if not self._restored:
            return
        with self._lock:
            self._sync = sync
            # Queues read first, written last: see the module docstring.
            queues = [
                self._read_queue(name, everything or (sync and self._queue_files[name].compaction_due()))
                for name in self._queues
            ]
            changes, s3_changed = self._tracker.take()
            for table in self._tables:
                whole = everything or changes.whole is None or table in changes.whole
                try:
                    # Compaction (O(table)) by the snapshot thread only, never while a request waits.
                    if whole or (sync and self._files[table].compaction_due()):
                        self._compact(table)
                    elif table in changes.keys:
                        self._append(table, changes.keys[table])
                except _SAVE_ERRORS:
                    # The changes taken are not all saved: rewrite every table on the next tick.
                    self._tracker.mark_tables(set(self._tables))
                    raise
            if everything or s3_changed:
                try:
                    for bucket in self._buckets:
                        self._save_bucket(bucket)
                except _SAVE_ERRORS:
                    self._tracker.mark_s3()
                    raise
            for name, (whole, messages, gone) in zip(self._queues, queues, strict=True):
                self._write_queue(name, whole, messages, gone)
            synced = sorted(self._unsynced) if sync else []  # tables sort before queues: the safe order
            self._unsynced.difference_update(synced)
        # fsync outside the lock: a flush waiting for the disk would hold up the request it answers
        try:
            _fsync(synced)
        except OSError:
            with self._lock:
                self._unsynced.update(synced)  # the next snapshot tries again
            raise

    def flush(self) -> None:
        """Returns once every change made before the call is on disk (callers share saves)."""
        self._flush()

    def _save_unsynced(self) -> None:
        try:
            # No fsync (about 40 ms a file on a busy disk): the files survive the process dying,
            # and the snapshot thread's fsync within a second covers the machine going down.
            self.snapshot(sync=False)
        except _SAVE_ERRORS:
            log.exception("could not save state before answering; the snapshot thread retries")

    def _write(self, path: Path, data: bytes) -> None:
        write_atomic(path, data, self._sync)
        if not self._sync:
            self._unsynced.add(path)

    def _compact(self, table: str) -> None:
        self._files[table].compact(self._state.table_items(table))

    def _append(self, table: str, named: list[dict[str, Any]]) -> None:
        """Logs the current state of each item named (by an item or key): cost per item changed."""
        attributes = self._state.key_attributes(table)
        keys: dict[str, dict[str, Any]] = {}
        for entry in named:
            if all(a in entry for a in attributes):  # else moto refused the request
                key = {a: entry[a] for a in attributes}
                keys.setdefault(json.dumps(key, sort_keys=True, default=_json_bytes), key)
        changes: list[tuple[str, dict[str, Any]]] = []
        for key in keys.values():
            item = self._state.get_item(table, key)
            changes.append(("delete", key) if item is None else ("put", item))
        if changes:
            self._unsynced.add(self._files[table].append(changes))

    def _save_bucket(self, bucket: str) -> None:
        folder = self._dir / "s3" / bucket
        manifest_path = folder / "manifest.json"
        old: dict[str, dict[str, Any]] = (
            json.loads(manifest_path.read_text(encoding="utf-8")) if manifest_path.exists() else {}
        )
        manifest: dict[str, dict[str, Any]] = {}
        for page in self._s3.get_paginator("list_objects_v2").paginate(Bucket=bucket):
            for obj in page.get("Contents", []):
                key, etag = obj["Key"], obj.get("ETag", "")
                previous = old.get(key)
                if previous and previous.get("etag") == etag and (folder / "objects" / previous["sha256"]).exists():
                    manifest[key] = previous
                    continue
                got = self._s3.get_object(Bucket=bucket, Key=key)
                body = got["Body"].read()
                digest = hashlib.sha256(body).hexdigest()
                if not (folder / "objects" / digest).exists():
                    self._write(folder / "objects" / digest, body)
                manifest[key] = {
                    "sha256": digest,
                    "etag": etag,
                    "content_type": got.get("ContentType"),
                    "metadata": got.get("Metadata") or {},
                }
        self._write(manifest_path, json.dumps(manifest, indent=1).encode("utf-8"))
        kept = {entry["sha256"] for entry in manifest.values()}
        for blob in (folder / "objects").glob("*") if (folder / "objects").exists() else []:
            if blob.name not in kept and not blob.name.startswith("."):
                blob.unlink(missing_ok=True)

    def _read_queue(self, name: str, whole: bool) -> tuple[bool, list[dict[str, Any]], set[str]]:
        """(whole, messages to save, ids gone): all its messages if whole, else those sent since the last save."""
        if whole:
            return True, self._state.queued_messages(name), set()
        saved, ids = self._queue_ids[name], self._state.queued_ids(name)
        gone = saved.difference(ids)
        sent = self._state.queued_messages(name, only=set(ids) - saved) if len(ids) > len(saved) - len(gone) else []
        return False, sent, gone

    def _write_queue(self, name: str, whole: bool, messages: list[dict[str, Any]], gone: set[str]) -> None:
        if whole:
            self._queue_files[name].compact(messages)
            self._queue_ids[name] = {m["id"] for m in messages}
        elif gone or messages:
            changes = [("delete", {"id": i}) for i in gone] + [("put", m) for m in messages]
            self._unsynced.add(self._queue_files[name].append(changes))
            self._queue_ids[name] = (self._queue_ids[name] - gone) | {m["id"] for m in messages}

    # --- thread --------------------------------------------------------------------------------

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name="snapshotter", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stops the thread, then takes a last full snapshot."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=30)
        self.snapshot(everything=True)

    def _run(self) -> None:
        wait = self._interval
        while not self._stop.wait(wait):
            began = time.monotonic()
            try:
                self.snapshot()
            except _SAVE_ERRORS:
                log.exception("snapshot failed; retrying in %.0f s", self._interval)
            # A save that compacted or rewrote S3's manifest grows with the data: spacing saves by a
            # multiple of the last one's time keeps them to a small share of the CPU serving requests.
            wait = max(self._interval, _SPACING * (time.monotonic() - began))


def _attribute_in(value: dict[str, Any]) -> dict[str, Any]:
    if str(value.get("DataType", "")).startswith("Binary") and isinstance(value.get("BinaryValue"), str):
        return {**value, "BinaryValue": base64.b64decode(value["BinaryValue"])}
    return value


def _json_bytes(value: object) -> str:
    # Binary values (message attributes, binary nested in items); restored base64-encoded, as sent.
    if isinstance(value, bytes | bytearray):
        return _b64(bytes(value))
    raise TypeError(f"cannot save {type(value).__name__}")


def _fsync(paths: list[Path]) -> None:
    for path in paths:
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:  # an object body no longer used: nothing to keep
            continue
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
