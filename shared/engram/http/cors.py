"""CORS for the API function's answers: closed unless origins are configured (ENGRAM_CORS_ORIGINS,
the template's AllowedOrigin). Only a listed origin is ever echoed in Access-Control-Allow-Origin."""

from __future__ import annotations

from aws_lambda_powertools.event_handler import CORSConfig

from engram.domain.errors import ConfigurationError

PREFLIGHT_MAX_AGE_S = 600


def cors_config(origins: tuple[str, ...]) -> CORSConfig | None:
    """None (no CORS headers on any answer) unless at least one origin is allowed."""
    if "*" in origins:  # any site could then read a user's memories with a key the browser holds
        raise ConfigurationError("ENGRAM_CORS_ORIGINS: name the origins; '*' is not accepted")
    allowed = list(origins)
    if not allowed:
        return None
    return CORSConfig(
        allow_origin=allowed[0],
        extra_origins=allowed[1:],
        allow_headers=["x-api-key", "x-engram-user-id"],  # the chat proxy's user header
        max_age=PREFLIGHT_MAX_AGE_S,
    )
