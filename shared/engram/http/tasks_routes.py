"""The tasks route of the API function (a Powertools Router the handler includes): what an add, an import
or a delete-all queued, and how far it got. HTTP glue only."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router

from engram import bootstrap
from engram.http.authorization import tenant_of
from engram.http.models import TaskView
from engram.http.operation_docs import OPERATIONS

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


@router.get("/v1/tasks/<task_id>", **OPERATIONS["get_task"])
def get_task(task_id: str) -> TaskView:
    return TaskView.of(bootstrap.container().memories.task(tenant_of(router.current_event), task_id))
