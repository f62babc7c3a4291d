"""The tenant's configuration routes of the API function (a Powertools Router the handler includes):
GET and PUT /v1/config, and POST /v1/config/policy/test (a sentence tried against the policy), HTTP glue
only. The body is validated against domain/policy.py's TenantConfig (domain/policy_trial.py's PolicyTrial
for a test): a limit passed or a custom prompt missing what the pipeline needs is a 422 naming the field.
PUT answers with `warnings`: what of the configuration this deployment cannot honour (instructions
without an LLM)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.api_gateway import Router
from aws_lambda_powertools.event_handler.openapi.params import Query

from engram import bootstrap
from engram.domain.limits import ID_PATTERN, MAX_ID_CHARS
from engram.domain.policy import ConfigAnswer, TenantConfig
from engram.domain.policy_trial import PolicyTrial, PolicyTrialAnswer
from engram.http.authorization import tenant_of
from engram.http.operation_docs import OPERATIONS

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


# With user_id: that user's own policy, what they asked in chat not to be remembered (docs/safety.md);
# only its `exclude` applies, on top of the tenant's.
UserId = Annotated[str | None, Query(min_length=1, max_length=MAX_ID_CHARS, pattern=ID_PATTERN)]


@router.get("/v1/config", **OPERATIONS["get_config"])
def get_config(user_id: UserId = None) -> TenantConfig:
    configs, tenant = bootstrap.container().configs, tenant_of(router.current_event)
    return configs.of_user(tenant, user_id) if user_id else configs.get(tenant)


@router.put("/v1/config", **OPERATIONS["put_config"])
def put_config(body: TenantConfig, user_id: UserId = None) -> ConfigAnswer:
    container, tenant = bootstrap.container(), tenant_of(router.current_event)
    if user_id:
        stored = container.configs.put_user(tenant, user_id, body)
        return ConfigAnswer(**stored.model_dump())
    stored = container.configs.put(tenant, body)
    return ConfigAnswer(**stored.model_dump(), warnings=container.policy_warnings(stored))


@router.post("/v1/config/policy/test", **OPERATIONS["test_policy"])
def test_policy(body: PolicyTrial) -> PolicyTrialAnswer:
    return bootstrap.container().policy_trials.test(tenant_of(router.current_event), body)
