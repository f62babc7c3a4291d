"""On AWS API Gateway verified the signature; the principal it names is mapped to a tenant, or refused."""

from __future__ import annotations

import pytest

from engram.agentcore.principals import PrincipalCallers
from engram.domain.errors import ForbiddenError

MAPPING = "arn:aws:iam::123456789012:user/ci=acme,arn:aws:sts::123456789012:assumed-role/Agent/*=globex"


def event(user_arn: str | None) -> dict[str, object]:
    return {"requestContext": {"identity": {"userArn": user_arn}}}


def test_a_mapped_principal_is_its_tenants_and_a_star_is_a_prefix() -> None:
    callers = PrincipalCallers(MAPPING)
    assert callers.tenant(event("arn:aws:iam::123456789012:user/ci")) == "acme"
    assert callers.tenant(event("arn:aws:sts::123456789012:assumed-role/Agent/session-7")) == "globex"


@pytest.mark.parametrize(
    "user_arn",
    ["arn:aws:iam::123456789012:user/ci2", "arn:aws:sts::123456789012:assumed-role/AgentX/s", None],
)
def test_any_other_principal_is_refused(user_arn: str | None) -> None:
    with pytest.raises(ForbiddenError):
        PrincipalCallers(MAPPING).tenant(event(user_arn))


def test_without_a_mapping_everyone_is_refused() -> None:
    with pytest.raises(ForbiddenError):
        PrincipalCallers(None).tenant(event("arn:aws:iam::123456789012:user/ci"))
