"""The API's own description (a Powertools Router the handler includes): /openapi.json and the Swagger UI
page at /docs, both built from the resolver's routes when asked for (http/docs.py)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response
from aws_lambda_powertools.event_handler.api_gateway import Router

from engram.http.docs import openapi_document, swagger_page
from engram.http.operation_docs import OPERATIONS

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


def resolver() -> APIGatewayRestResolver:
    """The resolver that included this router: the document describes its routes."""
    app = router.api_resolver
    if not isinstance(app, APIGatewayRestResolver):
        raise TypeError("the docs routes answer only once an APIGatewayRestResolver has included them")
    return app


@router.get("/openapi.json", **OPERATIONS["openapi"])
def openapi() -> Response[str]:
    return openapi_document(resolver())


@router.get("/docs", include_in_schema=False)
def docs() -> Response[str]:
    return swagger_page(resolver())  # Swagger UI and the OpenAPI models load on first use, not at cold start
