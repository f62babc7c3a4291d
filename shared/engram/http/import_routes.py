"""The import route of the API function (a Powertools Router the handler includes): HTTP glue only."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.api_gateway import Router

from engram import bootstrap
from engram.domain.imports import ImportRequest
from engram.http.authorization import tenant_of
from engram.http.models import Accepted
from engram.http.operation_docs import OPERATIONS

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


@router.post("/v1/memories/import", **OPERATIONS["import_memories"])
def import_memories(body: ImportRequest) -> Response[Accepted]:
    """Exported memories written as they were, as a task (services/importer.py): 202 with its id."""
    task = bootstrap.container().memories.submit_import(tenant_of(router.current_event), body)
    return Response(202, content_types.APPLICATION_JSON, Accepted(task_id=task.task_id, status=task.status))
