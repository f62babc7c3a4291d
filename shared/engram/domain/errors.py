"""Domain errors. Adapters translate provider errors into these; the API maps them to HTTP."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from engram.domain.models import Usage


class EngramError(Exception):
    """Base of every error Engram raises on purpose."""


class NotFoundError(EngramError):
    """The thing does not exist for this tenant (or belongs to another one)."""

    def __init__(self, kind: str, ident: str) -> None:
        super().__init__(f"{kind} {ident!r} not found")
        self.kind = kind
        self.ident = ident


class ValidationError(EngramError):
    """Client input that passed the schema but breaks a rule; names the field at fault."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class PayloadTooLargeError(ValidationError):
    """Input over a size limit (HTTP 413)."""


class UnauthorizedError(EngramError):
    """Missing, unknown or revoked API key."""


class ForbiddenError(EngramError):
    """A request whose signature or principal this deployment refuses (the AgentCore routes: SigV4)."""


class ConflictError(EngramError):
    """An optimistic-lock or uniqueness condition failed; the caller may retry."""


class TransientError(EngramError):
    """A dependency failed in a way worth retrying (throttling, timeouts, 5xx)."""


class LLMOutputError(EngramError):
    """The LLM answered with something that cannot be used even after repair. `usage`: what the
    attempts cost, for a caller that carries on without the answer."""

    def __init__(self, message: str, usage: Usage | None = None) -> None:
        super().__init__(message)
        self.usage = usage


class ConfigurationError(EngramError):
    """The deployment is missing a setting it needs; raised at start, before any request is served."""


class OutageError(TransientError):
    """A dependency is down for a while, through no fault of the work: tasks wait for it (their
    tries do not count and they are never dead-lettered) instead of failing."""

    def __init__(self, reason: str, retry_after_s: float) -> None:
        super().__init__(reason)
        self.retry_after_s = retry_after_s


class CircuitOpenError(OutageError):
    """The LLM circuit breaker is open: work that needs the LLM waits instead of failing."""


class IndexUnavailableError(OutageError):
    """The search index cannot be reached or is overloaded (HTTP 503 for a search; adds wait)."""

    def __init__(self, reason: str, retry_after_s: float = 30.0) -> None:
        super().__init__(f"search index unavailable: {reason}", retry_after_s)
