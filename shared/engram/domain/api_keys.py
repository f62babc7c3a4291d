"""An API key as the key store keeps it: the tenant it belongs to, never the secret itself."""

from __future__ import annotations

from datetime import datetime

from pydantic import Field

from engram.domain.model_base import Model
from engram.domain.models import utcnow


class ApiKey(Model):
    key_id: str
    tenant_id: str
    created_at: datetime = Field(default_factory=utcnow)
    revoked: bool = False
    description: str | None = None
