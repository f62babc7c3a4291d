"""The Swagger UI page at /docs, built when asked for.

Powertools' `enable_swagger` imports its OpenAPI models when the app is created (about 0.2 s of every
API cold start, for a page few requests want); this builds the same page on its first request.
`?format=json` answers the spec, as enable_swagger's page does.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from aws_lambda_powertools.event_handler import APIGatewayRestResolver, Response, content_types


@cache
def _assets() -> tuple[str, str]:
    from aws_lambda_powertools.event_handler.openapi import swagger_ui

    folder = Path(swagger_ui.__file__).parent
    js = (folder / "swagger-ui-bundle.min.js").read_text(encoding="utf-8")
    css = (folder / "swagger-ui.min.css").read_text(encoding="utf-8")
    return js, css


def swagger_page(app: APIGatewayRestResolver, title: str, version: str) -> Response[str]:
    from aws_lambda_powertools.event_handler.openapi.models import Server
    from aws_lambda_powertools.event_handler.openapi.swagger_ui import generate_swagger_html

    servers = [Server(url=app._get_base_path() or "/")]  # the stage prefix, so "try it out" works
    # "</" escaped: the spec is inlined in a <script> element.
    spec = app.get_openapi_json_schema(title=title, version=version, servers=servers).replace("</", "<\\/")
    if (app.current_event.query_string_parameters or {}).get("format") == "json":
        return Response(200, content_types.APPLICATION_JSON, spec)
    js, css = _assets()
    return Response(200, "text/html", generate_swagger_html(spec, js, css, "", None))
