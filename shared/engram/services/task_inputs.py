"""An add task's input: read back from the task or the blob store, and kept while memories come from it."""

from __future__ import annotations

from engram.domain.errors import EngramError
from engram.domain.models import AddRequest, Event, Message, Task
from engram.domain.ports import BlobStore

# Large inputs wait in the bucket under PAYLOADS, which expires with the tasks; the inputs of tasks
# that memories came from move to SOURCES, which does not.
PAYLOADS = "payloads/"
SOURCES = "sources/"
_KEPT = (Event.ADD, Event.UPDATE)
LEFT_OUT = "[left out by the memory policy]"


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


def redact_input(task: Task, request: AddRequest, messages: list[Message], blobs: BlobStore | None) -> None:
    """Keep the task's input as the policy left it (its excluded clauses cut out), inline or in the bucket,
    so `?include=source` never shows what was to be stored nowhere. A message left with nothing says so
    (it stays in place: memories name their message by its index)."""
    kept = [m if m.content.strip() else m.model_copy(update={"content": LEFT_OUT}) for m in messages]
    redacted = request.model_copy(update={"messages": kept})
    if task.request is not None:
        task.request = redacted
    elif task.payload_key is not None and blobs is not None:
        blobs.put(task.payload_key, redacted.model_dump_json().encode("utf-8"), "application/json")
