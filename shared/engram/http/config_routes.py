"""The tenant's configuration routes of the API function (a Powertools Router the handler includes):
GET and PUT /v1/config, HTTP glue only. The body is validated against domain/policy.py's TenantConfig:
a limit passed or a custom prompt missing what the pipeline needs is a 422 naming the field. PUT answers
with `warnings`: what of the configuration this deployment cannot honour (instructions without an LLM)."""

from __future__ import annotations

from aws_lambda_powertools.event_handler.api_gateway import Router

from engram import bootstrap
from engram.domain.policy import ConfigAnswer, TenantConfig
from engram.http.authorization import tenant_of
from engram.http.operation_docs import OPERATIONS

router = Router()  # type: ignore[no-untyped-call]  # Powertools leaves __init__ unannotated


@router.get("/v1/config", **OPERATIONS["get_config"])
def get_config() -> TenantConfig:
    return bootstrap.container().configs.get(tenant_of(router.current_event))


@router.put("/v1/config", **OPERATIONS["put_config"])
def put_config(body: TenantConfig) -> ConfigAnswer:
    container = bootstrap.container()
    stored = container.configs.put(tenant_of(router.current_event), body)
    return ConfigAnswer(**stored.model_dump(), warnings=container.policy_warnings(stored))
