"""API Gateway's own answers (no key, key denied, throttled, no route, too large, integration failure),
rendered from template.yaml's GatewayResponses: `make run` answers what the deployed API answers, and
the two cannot drift apart. Types the template leaves out fall back to its DEFAULT_4XX / DEFAULT_5XX,
then to API Gateway's built-in `{"message": ...}`."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from engram_tools.local.template import GatewayResponse

# API Gateway's status and wording for each response type the local front gives.
_BUILT_IN: dict[str, tuple[int, str | None]] = {
    "UNAUTHORIZED": (401, "Unauthorized"),
    "ACCESS_DENIED": (403, "User is not authorized to access this resource with an explicit deny"),
    "MISSING_AUTHENTICATION_TOKEN": (403, "Missing Authentication Token"),
    "THROTTLED": (429, "Too Many Requests"),
    "REQUEST_TOO_LARGE": (413, "Request Too Long"),
    "UNSUPPORTED_MEDIA_TYPE": (415, "Unsupported Media Type"),
    "BAD_REQUEST_BODY": (400, "Invalid request body"),
    "AUTHORIZER_FAILURE": (500, None),  # API Gateway's body is {"message": null}
    "INTEGRATION_FAILURE": (502, "Internal server error"),
    "INTEGRATION_TIMEOUT": (504, "Endpoint request timed out"),
}
_CONTEXT = re.compile(r"\$context\.([A-Za-z]+(?:\.[A-Za-z]+)*)")
_PARAM = re.compile(r"\$\{([A-Za-z0-9:]+)\}")


@dataclass(frozen=True)
class GatewayAnswer:
    status: int
    body: bytes


@dataclass(frozen=True)
class GatewayResponses:
    responses: Mapping[str, GatewayResponse]
    parameters: Mapping[str, Any]  # what the templates' ${Param}s stand for (the template's, or local settings)

    def answer(
        self, kind: str, method: str, path: str, *, status: int | None = None, message: str | None = None
    ) -> GatewayAnswer:
        """The `kind` response for a request; `status` overrides the type's (405 for a method the
        resource lacks, which API Gateway answers as MISSING_AUTHENTICATION_TOKEN); `message` is
        $context.error.message (the type's built-in wording by default)."""
        default_status, default_message = _BUILT_IN.get(kind, (500 if kind == "DEFAULT_5XX" else 400, None))
        own = self.responses.get(kind)
        fallback = self.responses.get("DEFAULT_5XX" if (status or default_status) >= 500 else "DEFAULT_4XX")
        code = status or (own.status if own and own.status else None) or default_status
        template = (own.template if own else None) or (fallback.template if fallback else None)
        text = message if message is not None else default_message
        if template is None:
            return GatewayAnswer(code, json.dumps({"message": text}).encode())
        # Escaped for a JSON string (API Gateway does not escape; a path with a quote would break its body).
        context = {
            "httpMethod": _inside(method),
            "path": _inside(path),
            "error.message": _inside(text or ""),
            "error.messageString": json.dumps(text),
            "error.responseType": kind,
        }
        body = _PARAM.sub(lambda m: str(self.parameters.get(m.group(1), m.group(0))), template)
        body = _CONTEXT.sub(lambda m: context.get(m.group(1), ""), body)
        return GatewayAnswer(code, body.encode())


def _inside(text: str) -> str:
    return json.dumps(text)[1:-1]
