"""boto3 clients created lazily once per container, and botocore errors mapped to domain errors."""

from __future__ import annotations

import platform
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, TypeVar

import boto3
from botocore.config import Config
from botocore.exceptions import (
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    ReadTimeoutError,
)

from engram.adapters.aws.parsing import fast_session
from engram.domain.errors import ConflictError, EngramError, TransientError

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_s3.client import S3Client
    from mypy_boto3_sqs.client import SQSClient
    from mypy_boto3_stepfunctions.client import SFNClient

    from engram.settings import Settings

T = TypeVar("T")

USER_AGENT = f"engram Boto3/{boto3.__version__} Python/{platform.python_version()}"

_CONFLICT_CODES = frozenset({"ConditionalCheckFailedException", "ConditionalCheckFailed"})
_TRANSIENT_CODES = frozenset(
    {
        "ProvisionedThroughputExceededException",
        "ThrottlingException",
        "Throttling",
        "RequestLimitExceeded",
        "InternalServerError",
        "InternalError",
        "ServiceUnavailable",
        "ServiceUnavailableException",
        "SlowDown",
        "RequestThrottled",
        "TransactionConflict",
        "TransactionConflictException",
        "TransactionInProgressException",
    }
)
_MISSING_RESOURCE_CODES = frozenset(
    {
        "ResourceNotFoundException",
        "NoSuchBucket",
        "AWS.SimpleQueueService.NonExistentQueue",
        "QueueDoesNotExist",
    }
)
# Network-level failures that never reached (or never heard back from) the service.
_NETWORK_ERRORS = (EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError, ConnectionClosedError)


class AwsClients:
    """Lazily builds each boto3 client on first use, once, honouring the local endpoint override."""

    def __init__(self, settings: Settings, session: boto3.session.Session | None = None) -> None:
        self._settings = settings
        self._session = session
        self._lock = threading.Lock()
        self._clients: dict[str, Any] = {}

    @property
    def dynamodb(self) -> DynamoDBClient:
        client: DynamoDBClient = self._get("dynamodb", lambda: self._make("dynamodb"))
        return client

    @property
    def s3(self) -> S3Client:
        client: S3Client = self._get("s3", lambda: self._make("s3"))
        return client

    @property
    def sqs(self) -> SQSClient:
        client: SQSClient = self._get("sqs", lambda: self._make("sqs"))
        return client

    @property
    def stepfunctions(self) -> SFNClient:
        client: SFNClient = self._get("stepfunctions", lambda: self._make("stepfunctions"))
        return client

    @property
    def events(self) -> Any:
        """EventBridge (the memory event bus)."""
        return self._get("events", lambda: self._make("events"))

    def session_client(self, service: str, endpoint_url: str) -> Any:
        """A client of `service` at a given endpoint (the WebSocket stage's Management API)."""
        return self._get(f"{service}@{endpoint_url}", lambda: self._make(service, endpoint_url))

    def _get(self, name: str, factory: Callable[[], T]) -> T:
        # Lock so that threads of the local stack share one client instead of racing to build two.
        with self._lock:
            if name not in self._clients:
                self._clients[name] = factory()
            client: T = self._clients[name]
            return client

    def _make(self, service: str, endpoint_url: str | None = None) -> Any:
        endpoint = endpoint_url or self._settings.aws_endpoint_url
        config = Config(
            retries={"mode": "standard", "max_attempts": 5},
            # Per request, botocore validates the parameters against the service model and rebuilds
            # its User-Agent from a dozen parts: about a tenth of a request's client CPU. The
            # services validate what they are sent, and a fixed User-Agent is built once.
            parameter_validation=False,
            user_agent=USER_AGENT,
        )
        if service == "s3":
            # SigV4 presigned URLs work in every region; path style because a local endpoint
            # (moto server on localhost) has no per-bucket DNS names.
            s3_config = Config(signature_version="s3v4", s3={"addressing_style": "path"} if endpoint else None)
            config = config.merge(s3_config)
        if self._session is None:
            # One session for every client: each new session loads botocore's data files again
            # (about 0.1 s of a cold start for three clients).
            self._session = fast_session()
        return self._session.client(  # type: ignore[call-overload]
            service, region_name=self._settings.aws_region, endpoint_url=endpoint, config=config
        )


def error_code(err: ClientError) -> str:
    return str(err.response.get("Error", {}).get("Code", ""))


def cancellation_codes(err: ClientError) -> list[str]:
    """Per-item reason codes of a cancelled DynamoDB transaction ("None" for items that were fine)."""
    reasons: list[Any] = list(err.response.get("CancellationReasons", []))
    return [str(reason.get("Code", "None")) for reason in reasons]


def translate_client_error(err: ClientError, resource: str) -> EngramError:
    """The domain error for a botocore ClientError; `resource` names the table, bucket or queue."""
    code = error_code(err)
    message = str(err.response.get("Error", {}).get("Message", "")) or str(err)
    if code in _CONFLICT_CODES:
        return ConflictError(f"condition failed on {resource}: {message}")
    if code == "TransactionCanceledException":
        reasons = cancellation_codes(err)
        if any(reason in _CONFLICT_CODES for reason in reasons):
            return ConflictError(f"transaction on {resource} cancelled: {message}")
        if any(reason in _TRANSIENT_CODES for reason in reasons):
            return TransientError(f"transaction on {resource} cancelled (retryable): {message}")
        return EngramError(f"transaction on {resource} cancelled: {message}")
    if code in _TRANSIENT_CODES:
        return TransientError(f"{code} from {resource}: {message}")
    if code in _MISSING_RESOURCE_CODES:
        return EngramError(f"AWS resource {resource!r} does not exist ({code}); is it provisioned?")
    status = err.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
    if isinstance(status, int) and status >= 500:
        return TransientError(f"{code or status} from {resource}: {message}")
    return EngramError(f"{code or 'error'} from {resource}: {message}")


@contextmanager
def aws_errors(resource: str) -> Iterator[None]:
    """Re-raise botocore failures inside the block as domain errors."""
    try:
        yield
    except ClientError as err:
        raise translate_client_error(err, resource) from err
    except _NETWORK_ERRORS as err:
        raise TransientError(f"cannot reach {resource}: {err}") from err
