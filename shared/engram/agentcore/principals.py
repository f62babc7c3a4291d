"""Callers (engram.domain.agentcore) on AWS: API Gateway checked the SigV4 signature (AWS_IAM routes) and
put the IAM principal in the request context; ENGRAM_AGENTCORE_PRINCIPALS maps principals to tenants."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engram.domain.errors import ForbiddenError


def parse_principals(text: str | None) -> dict[str, str]:
    """`principal-arn=tenant,...`; an ARN ending in `*` is a prefix."""
    found: dict[str, str] = {}
    for entry in filter(None, (e.strip() for e in (text or "").split(","))):
        arn, _, tenant = entry.rpartition("=")
        if not arn or not tenant:
            raise ValueError("ENGRAM_AGENTCORE_PRINCIPALS: each entry is principal-arn=tenant")
        found[arn] = tenant
    return found


class PrincipalCallers:
    def __init__(self, principals: str | None) -> None:
        self._principals = parse_principals(principals)

    def tenant(self, request: Mapping[str, Any]) -> str:
        identity = (request.get("requestContext") or {}).get("identity") or {}
        user_arn = identity.get("userArn")
        if user_arn:
            if user_arn in self._principals:
                return self._principals[user_arn]
            for arn, tenant in self._principals.items():
                if arn.endswith("*") and user_arn.startswith(arn[:-1]):
                    return tenant
        raise ForbiddenError(f"the principal {user_arn!r} is mapped to no tenant (ENGRAM_AGENTCORE_PRINCIPALS)")
