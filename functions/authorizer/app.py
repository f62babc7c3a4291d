"""REQUEST authorizer: resolves the x-api-key header to a tenant, passed on in the context."""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.data_classes import event_source
from aws_lambda_powertools.utilities.data_classes.api_gateway_authorizer_event import (
    APIGatewayAuthorizerRequestEvent,
    APIGatewayAuthorizerResponse,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.bootstrap import container
from engram.http.authorization import authorize

logger = Logger()
container().settings.require("keys_table")


@logger.inject_lambda_context(log_event=False)  # the event carries the API key or user content
@event_source(data_class=APIGatewayAuthorizerRequestEvent)
def lambda_handler(event: APIGatewayAuthorizerRequestEvent, context: LambdaContext) -> dict[str, Any]:
    arn = event.parsed_arn
    headers = {k.lower(): v for k, v in (event.headers or {}).items()}
    grant = authorize(container().keys, headers.get("x-api-key"))
    policy = APIGatewayAuthorizerResponse(
        principal_id=grant.principal_id,
        region=arn.region,
        aws_account_id=arn.aws_account_id,
        api_id=arn.api_id,
        stage=arn.stage,
        context=grant.context,
    )
    if grant.allowed:
        policy.allow_all_routes()
    else:
        policy.deny_all_routes()
    return policy.asdict()
