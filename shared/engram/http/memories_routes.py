"""The memories routes of the API function (a Powertools Router the handler includes): add, list, read,
correct, forget, history and import. HTTP glue only: the steps are services/memory.py."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Literal

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram import bootstrap
from engram.domain.filters import ListFilters
from engram.domain.imports import ImportRequest
from engram.domain.models import AddRequest, MemoryBank, Task
from engram.http.authorization import tenant_of
from engram.http.models import (
    Accepted,
    Deleted,
    HistoryResponse,
    HistoryView,
    ListResponse,
    MemoryView,
    PatchBody,
    aware,
)
from engram.http.operation_docs import OPERATIONS
from engram.http.query import Cursor, Limit, UserId

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


def tenant() -> str:
    return tenant_of(router.current_event)


def accepted(task: Task) -> Response[Accepted]:
    """202 for work queued as a task, after the task's `queued` event is sent."""
    bootstrap.container().task_events.queued(task)
    return Response(202, content_types.APPLICATION_JSON, Accepted(task_id=task.task_id, status=task.status))


@router.post("/v1/memories", **OPERATIONS["add_memories"])
def add_memories(body: AddRequest) -> Response[Accepted]:
    return accepted(bootstrap.container().memories.submit(tenant(), body))


@router.get("/v1/memories", **OPERATIONS["list_memories"])
def list_memories(
    user_id: UserId,
    limit: Limit = 100,
    cursor: Cursor = None,
    agent_id: Annotated[str | None, Query(max_length=256)] = None,
    run_id: Annotated[str | None, Query(max_length=256)] = None,
    attachment_id: Annotated[str | None, Query(max_length=64)] = None,
    memory_bank: Annotated[MemoryBank | None, Query()] = None,
    is_protected: Annotated[bool | None, Query()] = None,
    fact_key: Annotated[str | None, Query(max_length=256)] = None,
    as_of: Annotated[datetime | None, Query()] = None,
) -> ListResponse:
    memories = bootstrap.container().memories
    bank = memory_bank.value if memory_bank else None
    filters = ListFilters(
        agent_id=agent_id, run_id=run_id, memory_bank=bank, is_protected=is_protected, fact_key=fact_key
    )
    page = memories.list_memories(tenant(), user_id, limit, cursor, filters, attachment_id, aware(as_of))
    details = memories.attachment_details(tenant(), page.items)
    return ListResponse(results=[MemoryView.of(f, None, details) for f in page.items], next_cursor=page.next_cursor)


@router.delete("/v1/memories", **OPERATIONS["delete_all"])
def delete_all(user_id: UserId) -> Response[Accepted]:
    return accepted(bootstrap.container().memories.delete_all(tenant(), user_id))


@router.get("/v1/memories/<memory_id>", **OPERATIONS["get_memory"])
def get_memory(memory_id: str, include: Annotated[Literal["source"] | None, Query()] = None) -> MemoryView:
    memories = bootstrap.container().memories
    fact = memories.get(tenant(), memory_id)
    view = MemoryView.of(fact, None, memories.attachment_details(tenant(), [fact]))
    if include == "source":
        view.source_messages = memories.source_messages(tenant(), fact)
    return view


@router.patch("/v1/memories/<memory_id>", **OPERATIONS["patch_memory"])
def patch_memory(memory_id: str, body: PatchBody) -> MemoryView:
    return MemoryView.of(bootstrap.container().memories.update(tenant(), memory_id, body))


@router.delete("/v1/memories/<memory_id>", **OPERATIONS["delete_memory"])
def delete_memory(memory_id: str) -> Deleted:
    bootstrap.container().memories.delete(tenant(), memory_id)
    return Deleted(deleted=1, message=f"memory {memory_id} deleted")


@router.get("/v1/memories/<memory_id>/history", **OPERATIONS["memory_history"])
def memory_history(memory_id: str, limit: Limit = 100, cursor: Cursor = None) -> HistoryResponse:
    page = bootstrap.container().memories.history(tenant(), memory_id, limit, cursor)
    return HistoryResponse(results=[HistoryView.of(e) for e in page.items], next_cursor=page.next_cursor)


@router.post("/v1/memories/import", **OPERATIONS["import_memories"])
def import_memories(body: ImportRequest) -> Response[Accepted]:
    """Exported memories written as they were, as a task (services/importer.py): 202 with its id."""
    return accepted(bootstrap.container().memories.submit_import(tenant(), body))
