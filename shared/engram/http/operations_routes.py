"""The operations routes of the API function (a Powertools Router the handler includes): health, queue
figures, usage and the memory page's static files. HTTP glue only."""

from __future__ import annotations

from datetime import date
from typing import Annotated, Literal

from aws_lambda_powertools.event_handler import Response, content_types
from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram import bootstrap
from engram.domain.errors import UnauthorizedError
from engram.domain.operations import HealthReport, QueueFigures, UsageReport
from engram.http.authorization import authorize, tenant_of
from engram.http.operation_docs import OPERATIONS
from engram.ui import static_file

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


_JSON = content_types.APPLICATION_JSON


# --- health: cheap and open; deep=true checks every dependency, for a caller with a key ----------
@router.get(
    "/health",
    **OPERATIONS["health"],
    responses={
        200: {"description": "up (deep: every dependency answered)", "content": {_JSON: {"model": HealthReport}}},
        503: {
            "description": "deep: a dependency is down (see down)",
            "content": {_JSON: {"model": HealthReport}},
        },
    },
)
def health(deep: Annotated[bool, Query()] = False) -> Response[str]:
    report = HealthReport(status="ok")
    if deep:
        # /health has no authorizer on the gateway (it must answer without a key), so deep checks here.
        container = bootstrap.container()
        if not authorize(container.keys, router.current_event.headers.get("x-api-key")).allowed:
            raise UnauthorizedError("deep health needs a valid x-api-key")
        report = container.health.run()
    status = 200 if report.status == "ok" else 503
    return Response(status, content_types.APPLICATION_JSON, report.model_dump_json(exclude_none=True))


# --- live: queue figures --------------------------------------------------------------------------
_WINDOWS = {"hour": 3600, "day": 86400}


@router.get("/v1/metrics/extraction-queue", **OPERATIONS["extraction_queue_metrics"])
def extraction_queue_metrics(window: Annotated[Literal["hour", "day"], Query()] = "hour") -> QueueFigures:
    return bootstrap.container().queue_metrics.figures(tenant_of(router.current_event), _WINDOWS[window])


# --- usage per day, from counters kept as tasks finish and searches answer ---------------------------
@router.get("/v1/usage", **OPERATIONS["usage"])
def usage(
    from_: Annotated[date | None, Query(alias="from")] = None, to: Annotated[date | None, Query()] = None
) -> UsageReport:
    return bootstrap.container().usage.report(tenant_of(router.current_event), from_, to)


# --- the memory page's static files (no key: the page sends it on API calls)
@router.get("/ui", include_in_schema=False)  # a page, not an API operation
@router.get("/ui/<name>", include_in_schema=False)
def ui_file(name: str = "index.html") -> Response[str]:
    body, media_type = static_file(name)
    return Response(200, media_type, body, headers={"Cache-Control": "no-cache"})
