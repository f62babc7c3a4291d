"""API keys to tenants: the decision the authorizer (and the local HTTP front) makes."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engram.domain.errors import UnauthorizedError

if TYPE_CHECKING:
    from engram.domain.ports import ApiKeyStore


@dataclass(frozen=True)
class Grant:
    allowed: bool
    principal_id: str
    context: dict[str, str] = field(default_factory=dict)


def authorize(keys: ApiKeyStore, api_key: str | None) -> Grant:
    if not api_key:
        return Grant(False, "anonymous")
    try:
        record = keys.resolve(api_key)
    except UnauthorizedError:
        return Grant(False, "anonymous")
    return Grant(True, record.key_id, {"tenant_id": record.tenant_id, "key_id": record.key_id})


def tenant_of(event: Any) -> str:
    """The tenant the authorizer resolved from the API key; never taken from the request body."""
    tenant_id = event.request_context.authorizer.get("tenant_id")
    if not tenant_id:
        raise UnauthorizedError("no tenant in the request context")
    return str(tenant_id)
