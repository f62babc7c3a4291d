"""The users route of the API function (a Powertools Router the handler includes): the tenant's users,
one page at a time. HTTP glue only."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router

from engram import bootstrap
from engram.http.authorization import tenant_of
from engram.http.models import UsersResponse
from engram.http.operation_docs import OPERATIONS
from engram.http.query import Cursor, Limit

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


@router.get("/v1/users", **OPERATIONS["list_users"])
def list_users(limit: Limit = 100, cursor: Cursor = None) -> UsersResponse:
    return UsersResponse.of(bootstrap.container().memories.list_users(tenant_of(router.current_event), limit, cursor))
