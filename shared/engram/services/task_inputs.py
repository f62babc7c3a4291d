"""An add task's input: read back from the task or the blob store, and kept while memories come from it."""

from __future__ import annotations

from engram.domain.errors import EngramError
from engram.domain.models import AddRequest, Event, Task
from engram.domain.ports import BlobStore

# Large inputs wait in the bucket under PAYLOADS, which expires with the tasks; the inputs of tasks
# that memories came from move to SOURCES, which does not.
PAYLOADS = "payloads/"
SOURCES = "sources/"
_KEPT = (Event.ADD, Event.UPDATE)


def load_request(task: Task, blobs: BlobStore | None) -> AddRequest:
    if task.request is not None:
        return task.request
    if task.payload_key is None or blobs is None:
        raise EngramError(f"task {task.task_id} has no stored request")
    return AddRequest.model_validate_json(blobs.get(task.payload_key))


def retain_if_source(task: Task, blobs: BlobStore | None) -> None:
    """Mark a completed task retained when any of its results wrote a memory, so the source
    messages of current memories can still be shown after the usual task expiry."""
    if task.retained or not any(r.event in _KEPT for r in task.results):
        return
    task.retained = True
    key = task.payload_key
    if key is not None and key.startswith(PAYLOADS) and blobs is not None:
        kept = SOURCES + key.removeprefix(PAYLOADS)
        blobs.put(kept, blobs.get(key), "application/json")
        task.payload_key = kept
        blobs.delete(key)
