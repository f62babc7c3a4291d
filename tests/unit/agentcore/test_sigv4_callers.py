"""The local SigV4 check: a request botocore signed is its key's tenant's; any change to what was
signed, another secret, an unknown key or a stale signature is refused (AgentCore's AccessDenied)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import unquote, urlsplit

import pytest
from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

from engram.adapters.aws.sigv4_callers import SigV4Callers, parse_keys, signed_tenant
from engram.domain.errors import ForbiddenError

KEYS = "AKIDACME:acme/secret+1:acme,AKIDGLOBEX:globex-secret:globex"
RESOURCE = "/memories/{memoryId}/actor/{actorId}/sessions/{sessionId}/events/{eventId}"
PARAMS = {"memoryId": "engram-0123456789", "actorId": "org:alice", "sessionId": "s-1", "eventId": "1700000000000#ab12"}
HOST = "127.0.0.1:3000"


def signed_event(
    key: str = "AKIDACME",
    secret: str = "acme/secret+1",
    body: bytes = b'{"maxResults": 2}',
    service: str = "bedrock-agentcore",
) -> dict[str, Any]:
    """What botocore sends (the labels percent-encoded), signed, then as API Gateway hands it on:
    the path decoded, the resource and its parameters apart."""
    path = RESOURCE
    for name, value in PARAMS.items():
        path = path.replace("{" + name + "}", value.replace(":", "%3A").replace("#", "%23"))
    request = AWSRequest(method="POST", url=f"http://{HOST}{path}?namespace=%2Fa%2Fb", data=body)
    request.headers["Content-Type"] = "application/json"
    SigV4Auth(Credentials(key, secret), service, "us-east-1").add_auth(request)
    headers = {k: v for k, v in request.headers.items()}
    headers["Host"] = HOST
    sent = urlsplit(request.url)
    return {
        "resource": RESOURCE,
        "path": unquote(sent.path),
        "httpMethod": "POST",
        "headers": headers,
        "pathParameters": dict(PARAMS),
        "multiValueQueryStringParameters": {"namespace": ["/a/b"]},
        "body": body.decode(),
        "isBase64Encoded": False,
    }


def test_a_request_signed_with_a_configured_key_is_its_tenants() -> None:
    assert SigV4Callers(KEYS).tenant(signed_event()) == "acme"
    assert SigV4Callers(KEYS).tenant(signed_event("AKIDGLOBEX", "globex-secret")) == "globex"
    # API Gateway's signing name is taken too, so the same client works against both.
    assert SigV4Callers(KEYS).tenant(signed_event(service="execute-api")) == "acme"


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda e: e.update(body='{"maxResults": 3}'), id="another body"),
        pytest.param(lambda e: e["pathParameters"].update(actorId="org:mallory"), id="another actor"),
        pytest.param(lambda e: e["multiValueQueryStringParameters"].update(namespace=["/c"]), id="another query"),
        pytest.param(lambda e: e.update(httpMethod="DELETE"), id="another method"),
        pytest.param(lambda e: e["headers"].pop("X-Amz-Date"), id="no date"),
        pytest.param(lambda e: e["headers"].pop("Authorization"), id="not signed"),
    ],
)
def test_a_request_changed_after_signing_is_refused(change: Any) -> None:
    event = signed_event()
    change(event)
    with pytest.raises(ForbiddenError):
        SigV4Callers(KEYS).tenant(event)


def test_a_wrong_secret_or_an_unknown_key_is_refused() -> None:
    with pytest.raises(ForbiddenError, match="does not match"):
        SigV4Callers(KEYS).tenant(signed_event(secret="not-the-secret"))
    with pytest.raises(ForbiddenError, match="not one of ENGRAM_AGENTCORE_KEYS"):
        SigV4Callers(KEYS).tenant(signed_event(key="AKIDNOBODY"))
    with pytest.raises(ForbiddenError, match="credential scope"):
        SigV4Callers(KEYS).tenant(signed_event(service="s3"))


def test_a_signature_older_than_15_minutes_is_refused() -> None:
    event = signed_event()
    keys = parse_keys(KEYS)
    assert signed_tenant(keys, event, datetime.now(UTC) + timedelta(minutes=14)) == "acme"
    with pytest.raises(ForbiddenError, match="15 minutes"):
        signed_tenant(keys, event, datetime.now(UTC) + timedelta(minutes=16))


def test_keys_are_access_key_secret_tenant_triples() -> None:
    assert parse_keys(" A:s/1+:t1 , B:s2:t2 ")["A"].tenant_id == "t1"
    with pytest.raises(ValueError, match="ACCESSKEY:SECRET:tenant"):
        parse_keys("A:only-two")
