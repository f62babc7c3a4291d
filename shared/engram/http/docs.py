"""The Swagger UI page at /docs, built when asked for.

Powertools' `enable_swagger` imports its OpenAPI models when the app is created (about 0.2 s of every
API cold start, for a page few requests want); this builds the same page on its first request, with the
document /openapi.json answers inlined (its server, the security scheme for Authorize). Swagger UI's
files come from the Powertools package (no CDN). `?format=json` answers the document, as enable_swagger's
page does.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types

from engram.http.openapi import document_json


@cache
def _assets() -> tuple[str, str]:
    from aws_lambda_powertools.event_handler.openapi import swagger_ui

    folder = Path(swagger_ui.__file__).parent
    js = (folder / "swagger-ui-bundle.min.js").read_text(encoding="utf-8")
    css = (folder / "swagger-ui.min.css").read_text(encoding="utf-8")
    return js, css


def openapi_document(app: APIGatewayRestResolver) -> Response[str]:
    """/openapi.json: the document, its server where the request came in."""
    return Response(200, content_types.APPLICATION_JSON, document_json(app))


def swagger_page(app: APIGatewayRestResolver) -> Response[str]:
    from aws_lambda_powertools.event_handler.openapi.swagger_ui import generate_swagger_html

    if (app.current_event.query_string_parameters or {}).get("format") == "json":
        return openapi_document(app)
    spec = document_json(app)
    js, css = _assets()
    # "</" escaped: the document is inlined in a <script> element.
    return Response(200, "text/html", generate_swagger_html(spec.replace("</", "<\\/"), js, css, "", None))
