"""The graph routes of the API function (a Powertools Router the handler includes): HTTP glue only."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Literal

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram import bootstrap
from engram.domain.errors import NotFoundError, ValidationError
from engram.http.authorization import tenant_of
from engram.http.graph_models import EntityResponse, EntityView, GraphResponse, RelationDeleted, RelationView
from engram.http.models import aware
from engram.http.operation_docs import OPERATIONS
from engram.http.query import Cursor, Limit, UserId

if TYPE_CHECKING:  # built by the container when a request first uses graph memory
    from engram.graph.service import GraphService

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


def graph() -> GraphService:
    service = bootstrap.container().graph
    if service is None:
        raise NotFoundError("graph", "graph memory is off on this deployment")
    return service


@router.get("/v1/graph", **OPERATIONS["get_graph"])
def get_graph(
    user_id: UserId,
    limit: Limit = 100,
    entity_cursor: Cursor = None,
    relation_cursor: Cursor = None,
    as_of: Annotated[datetime | None, Query()] = None,
    relations: Annotated[Literal["all"] | None, Query()] = None,
) -> GraphResponse:
    if relations and as_of is not None:
        raise ValidationError("relations", "relations=all lists every relation; it takes no as_of")
    tenant = tenant_of(router.current_event)
    entities = graph().entities(tenant, user_id, limit, entity_cursor)
    page = graph().relations(tenant, user_id, limit, relation_cursor, aware(as_of), include_closed=bool(relations))
    return GraphResponse(
        entities=[EntityView.of(e) for e in entities.entities],
        relations=[RelationView.of(r) for r in page.relations],
        next_entity_cursor=entities.next_cursor,
        next_relation_cursor=page.next_cursor,
    )


@router.get("/v1/graph/entities/<entity_id>", **OPERATIONS["get_entity"])
def get_entity(entity_id: str) -> EntityResponse:
    entity, relations = graph().entity(tenant_of(router.current_event), entity_id)
    return EntityResponse(**EntityView.of(entity).model_dump(), relations=[RelationView.of(r) for r in relations])


@router.delete("/v1/graph/relations/<relation_id>", **OPERATIONS["delete_relation"])
def delete_relation(relation_id: str) -> RelationDeleted:
    closed = graph().delete_relation(tenant_of(router.current_event), relation_id)
    return RelationDeleted(id=closed.id, valid_to=closed.valid_to, message=f"relation {relation_id} closed")
