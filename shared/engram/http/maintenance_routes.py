"""The maintenance routes of the API function (a Powertools Router the handler includes): start a run
(repair, expire, dedupe, summarise, prune) and follow it. HTTP glue only; the run is a Step Functions
execution (functions/maintenance/app.py)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.api_gateway import Router

from engram import bootstrap
from engram.http.authorization import tenant_of
from engram.http.maintenance_models import MaintenanceBody, MaintenanceRunView, MaintenanceStarted
from engram.http.operation_docs import OPERATIONS

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


@router.post("/v1/maintenance", **OPERATIONS["start_maintenance"])
def start_maintenance(body: MaintenanceBody) -> Response[MaintenanceStarted]:
    execution_id = bootstrap.container().maintenance_runs.start(
        tenant_of(router.current_event), body.actions, body.user_id
    )
    return Response(202, content_types.APPLICATION_JSON, MaintenanceStarted(execution_id=execution_id))


@router.get("/v1/maintenance/<execution_id>", **OPERATIONS["get_maintenance"])
def get_maintenance(execution_id: str) -> MaintenanceRunView:
    return MaintenanceRunView.of(
        bootstrap.container().maintenance_runs.get(tenant_of(router.current_event), execution_id)
    )
