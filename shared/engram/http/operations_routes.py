"""The operations routes of the API function (a Powertools Router the handler includes): queue figures,
maintenance runs, the tenant's users and the memory page's static files. HTTP glue only."""

from __future__ import annotations

from typing import Annotated, Literal

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram import bootstrap
from engram.domain.operations import QueueFigures
from engram.http.authorization import tenant_of
from engram.http.maintenance_models import MaintenanceBody, MaintenanceRunView, MaintenanceStarted
from engram.http.models import UsersResponse
from engram.ui import static_file

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


# --- live: queue figures --------------------------------------------------------------------------
_WINDOWS = {"hour": 3600, "day": 86400}


@router.get("/v1/metrics/extraction-queue")
def extraction_queue_metrics(window: Annotated[Literal["hour", "day"], Query()] = "hour") -> QueueFigures:
    return bootstrap.container().queue_metrics.figures(tenant_of(router.current_event), _WINDOWS[window])


# --- maintenance runs --------------------------------------------------------------------------
@router.post("/v1/maintenance")
def start_maintenance(body: MaintenanceBody) -> Response[MaintenanceStarted]:
    execution_id = bootstrap.container().maintenance_runs.start(
        tenant_of(router.current_event), body.actions, body.user_id
    )
    return Response(202, content_types.APPLICATION_JSON, MaintenanceStarted(execution_id=execution_id))


@router.get("/v1/maintenance/<execution_id>")
def get_maintenance(execution_id: str) -> MaintenanceRunView:
    return MaintenanceRunView.of(
        bootstrap.container().maintenance_runs.get(tenant_of(router.current_event), execution_id)
    )


# --- the tenant's users, and the memory page's static files (no key: the page sends it on API calls)
@router.get("/v1/users")
def list_users(
    limit: Annotated[int, Query(ge=1, le=1000)] = 100, cursor: Annotated[str | None, Query(max_length=4096)] = None
) -> UsersResponse:
    return UsersResponse.of(bootstrap.container().memories.list_users(tenant_of(router.current_event), limit, cursor))


@router.get("/ui")
@router.get("/ui/<name>")
def ui_file(name: str = "index.html") -> Response[str]:
    body, media_type = static_file(name)
    return Response(200, media_type, body, headers={"Cache-Control": "no-cache"})
