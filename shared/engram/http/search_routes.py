"""The search route of the API function (a Powertools Router the handler includes): HTTP glue only; the
ranking is search/ and services/memory.py."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router

from engram import bootstrap
from engram.http.authorization import tenant_of
from engram.http.graph_models import RelationView
from engram.http.models import MemoryView, SearchBody, SearchResponse
from engram.http.operation_docs import OPERATIONS

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


@router.post("/v1/memories/search", **OPERATIONS["search"])
def search(body: SearchBody) -> SearchResponse:
    container = bootstrap.container()
    tenant = tenant_of(router.current_event)
    query = body.to_query()
    with container.accounting.search(tenant):  # the tenant's usage, the latency metric
        hits = container.memories.search(tenant, query)
    details = container.memories.attachment_details(tenant, [fact for fact, _ in hits])
    related = container.memories.related(tenant, query, body.graph_hops) if body.graph else []
    return SearchResponse(
        results=[MemoryView.of(fact, score, details) for fact, score in hits], relations=RelationView.scored(related)
    )
