"""Callers (engram.domain.agentcore) by SigV4 against configured key pairs: the local stack's AgentCore
routes, where no IAM stands in front (on AWS, API Gateway checks the signature: agentcore/principals.py).

The signature is recomputed with botocore's own signer over the request as the client signed it, and
compared in constant time; the answer is the key's tenant, or ForbiddenError (AgentCore's AccessDenied)."""

from __future__ import annotations

import base64
import binascii
import hmac
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from botocore.auth import SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials
from botocore.utils import percent_encode

from engram.domain.errors import ForbiddenError

SERVICES = frozenset({"bedrock-agentcore", "execute-api"})  # the SDK's signing name; API Gateway's
MAX_SKEW = timedelta(minutes=15)  # as AWS: a signature older or newer than this is refused
_AUTH = re.compile(
    r"^AWS4-HMAC-SHA256 Credential=([^,\s]{1,512}), ?SignedHeaders=([a-z0-9;_.-]{1,2048}), ?Signature=([0-9a-f]{64})$"
)
_PARAM = re.compile(r"\{([A-Za-z0-9_]+)\}")


@dataclass(frozen=True)
class KeyPair:
    access_key: str
    secret: str
    tenant_id: str


def parse_keys(text: str | None) -> dict[str, KeyPair]:
    """`ACCESSKEY:SECRET:tenant,...` (ENGRAM_AGENTCORE_KEYS)."""
    pairs: dict[str, KeyPair] = {}
    for entry in filter(None, (e.strip() for e in (text or "").split(","))):
        parts = entry.split(":")
        if len(parts) != 3 or not all(parts):
            raise ValueError("ENGRAM_AGENTCORE_KEYS: each entry is ACCESSKEY:SECRET:tenant")
        pairs[parts[0]] = KeyPair(*parts)
    return pairs


class SigV4Callers:
    def __init__(self, keys: str) -> None:
        self._keys = parse_keys(keys)

    def tenant(self, request: Mapping[str, Any]) -> str:
        return signed_tenant(self._keys, request)


def signed_tenant(keys: Mapping[str, KeyPair], event: Mapping[str, Any], now: datetime | None = None) -> str:
    """The tenant of the key that signed this API Gateway proxy event, if the signature holds."""
    headers = {k.lower(): v for k, v in (event.get("headers") or {}).items()}
    match = _AUTH.match(headers.get("authorization", ""))
    if match is None:
        raise ForbiddenError("the request is not signed with AWS Signature Version 4")
    credential, signed, signature = match.groups()
    scope = credential.split("/")
    if len(scope) != 5 or scope[4] != "aws4_request" or scope[3] not in SERVICES:
        raise ForbiddenError("the credential scope is not ACCESSKEY/date/region/bedrock-agentcore/aws4_request")
    key = keys.get(scope[0])
    if key is None:
        raise ForbiddenError("the access key is not one of ENGRAM_AGENTCORE_KEYS")
    stamp = headers.get("x-amz-date", "")
    _check_time(stamp, scope[1], now or datetime.now(UTC))
    names = signed.split(";")
    if "host" not in names or any(n not in headers for n in names):
        raise ForbiddenError("a signed header is missing from the request")
    request = AWSRequest(
        method=str(event.get("httpMethod")),
        url=f"http://{headers['host']}{_sent_path(event)}{_sent_query(event)}",
        data=_body(event),
        headers={n: headers[n] for n in names},
    )
    request.context["timestamp"] = stamp
    signer = SigV4Auth(Credentials(key.access_key, key.secret), scope[3], scope[2])
    expected = signer.signature(signer.string_to_sign(request, signer.canonical_request(request)), request)
    if not hmac.compare_digest(expected, signature):
        raise ForbiddenError(
            "the request signature we calculated does not match the signature you provided; check the secret key"
        )
    return key.tenant_id


def _check_time(stamp: str, day: str, now: datetime) -> None:
    try:
        when = datetime.strptime(stamp, "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    except ValueError as err:
        raise ForbiddenError("X-Amz-Date is missing or not YYYYMMDDTHHMMSSZ") from err
    if stamp[:8] != day:
        raise ForbiddenError("the credential scope's date is not X-Amz-Date's")
    if abs(now - when) > MAX_SKEW:
        raise ForbiddenError("the signature has expired or is from the future (over 15 minutes off)")


def _sent_path(event: Mapping[str, Any]) -> str:
    """The path as the SDK sent it: the resource with each parameter percent-encoded as botocore
    encodes URI labels (the proxy event carries the decoded path)."""
    params = event.get("pathParameters") or {}
    resource = str(event.get("resource") or event.get("path") or "/")
    return _PARAM.sub(lambda m: percent_encode(str(params.get(m.group(1), ""))), resource)


def _sent_query(event: Mapping[str, Any]) -> str:
    multi = event.get("multiValueQueryStringParameters") or {}
    pairs = [(percent_encode(k), percent_encode(v)) for k, values in multi.items() for v in values]
    return "?" + "&".join(f"{k}={v}" for k, v in pairs) if pairs else ""


def _body(event: Mapping[str, Any]) -> bytes:
    body = event.get("body") or ""
    if event.get("isBase64Encoded"):
        try:
            return base64.b64decode(body)
        except binascii.Error as err:
            raise ForbiddenError("the body is not the one signed") from err
    return str(body).encode("utf-8")
