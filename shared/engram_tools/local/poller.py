"""Lambda's SQS event source mapping, locally: receive a batch, invoke the handler, settle each record.

As on AWS: up to the template's BatchSize records (at most 10 per receive; more within the batching
window), an event shaped exactly like Lambda's, successful records deleted, and with
ReportBatchItemFailures only the listed ones retried (an invalid list, or a handler exception,
fails the whole batch). Failed records become visible again after a short local backoff instead
of the queue's full visibility timeout; the queue's RedrivePolicy moves a record to the DLQ after
maxReceiveCount receives, which moto does itself. One poller is one concurrent invocation.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING, Any

from botocore.exceptions import BotoCoreError, ClientError

from engram_tools.local.lambda_runtime import LocalFunction
from engram_tools.local.template import QueueSource

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient

log = logging.getLogger("engram_tools.local")

MAX_PER_RECEIVE = 10


def _message_attributes(attributes: dict[str, Any]) -> dict[str, Any]:
    """SQS API's MessageAttributes -> the camelCase shape Lambda records carry."""
    return {
        name: {
            "stringValue": value.get("StringValue"),
            "binaryValue": value.get("BinaryValue"),
            "stringListValues": value.get("StringListValues", []),
            "binaryListValues": value.get("BinaryListValues", []),
            "dataType": value.get("DataType"),
        }
        for name, value in attributes.items()
    }


def sqs_record(message: dict[str, Any], queue_arn: str, region: str) -> dict[str, Any]:
    return {
        "messageId": message["MessageId"],
        "receiptHandle": message["ReceiptHandle"],
        "body": message["Body"],
        "attributes": dict(message.get("Attributes", {})),
        "messageAttributes": _message_attributes(message.get("MessageAttributes", {})),
        "md5OfBody": message.get("MD5OfBody", ""),
        "eventSource": "aws:sqs",
        "eventSourceARN": queue_arn,
        "awsRegion": region,
    }


def failed_ids(result: Any, message_ids: set[str]) -> set[str]:
    """The records to retry, per Lambda's rules for a ReportBatchItemFailures response."""
    if not isinstance(result, dict) or not result.get("batchItemFailures"):
        return set()  # null, {} or an empty list: the whole batch succeeded
    failures = result["batchItemFailures"]
    ids = {f.get("itemIdentifier") for f in failures if isinstance(f, dict)} if isinstance(failures, list) else set()
    if not isinstance(failures, list) or len(ids) != len(failures) or not ids <= message_ids:
        return set(message_ids)  # a malformed or unknown identifier fails the batch, as on AWS
    return {str(i) for i in ids}


class QueuePoller:
    def __init__(
        self,
        sqs: SQSClient,
        source: QueueSource,
        queue_url: str,
        queue_arn: str,
        function: LocalFunction,
        region: str,
        retry_delay_s: int = 1,
        receive_lock: threading.Lock | None = None,
    ) -> None:
        self._sqs = sqs
        self._source = source
        self._url = queue_url
        self._arn = queue_arn
        self._function = function
        self._region = region
        self._retry_delay_s = retry_delay_s
        # Shared by the pollers of one queue. moto hands out a message group's messages while a
        # batch of that group is in flight when two receives overlap (its in-flight check reads the
        # groups once, before a long poll's wait): two batches of one user would then run at once,
        # which SQS FIFO never does, and both would add the same fact. One receive at a time holds.
        self._receive_lock = receive_lock or threading.Lock()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, name=f"poller-{self._source.function}", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stops after the batch in hand (a receive waits at most one second)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=self._function.spec.timeout_s + 5)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self.poll_once()
            except (ClientError, BotoCoreError):
                log.exception("polling %s failed; retrying in 1 s", self._url)
                self._stop.wait(1)

    def poll_once(self) -> int:
        """Receives one batch and settles it. Returns the number of records handled."""
        messages = self._receive()
        if not messages:
            return 0
        records = [sqs_record(m, self._arn, self._region) for m in messages]
        ids = {r["messageId"] for r in records}
        try:
            result = self._function.invoke({"Records": records})
        except Exception:  # a handler exception fails the whole batch, as on Lambda
            log.exception("%s failed on a batch of %d; all will be retried", self._source.function, len(records))
            failed = ids
        else:
            failed = failed_ids(result, ids) if self._source.report_failures else set()
        self._settle(records, failed)
        return len(records)

    def _receive(self) -> list[dict[str, Any]]:
        wanted = self._source.batch_size
        deadline = time.monotonic() + self._source.window_s
        messages: list[dict[str, Any]] = []
        while len(messages) < wanted and not self._stop.is_set():
            with self._receive_lock:
                if self._stop.is_set():
                    break
                resp = self._sqs.receive_message(
                    QueueUrl=self._url,
                    MaxNumberOfMessages=min(MAX_PER_RECEIVE, wanted - len(messages)),
                    WaitTimeSeconds=1,
                    AttributeNames=["All"],
                    MessageAttributeNames=["All"],
                )
            received: list[Any] = resp.get("Messages", [])
            messages.extend(received)
            if time.monotonic() >= deadline:  # no window (the default): one receive per batch
                break
        return messages

    def _settle(self, records: list[dict[str, Any]], failed: set[str]) -> None:
        done = [r for r in records if r["messageId"] not in failed]
        retry = [r for r in records if r["messageId"] in failed]
        for start in range(0, len(done), MAX_PER_RECEIVE):
            chunk = done[start : start + MAX_PER_RECEIVE]
            entries = [{"Id": str(i), "ReceiptHandle": r["receiptHandle"]} for i, r in enumerate(chunk)]
            resp = self._sqs.delete_message_batch(QueueUrl=self._url, Entries=entries)  # type: ignore[arg-type]
            for failure in resp.get("Failed", []):
                log.error("could not delete message: %s", failure.get("Message"))
        for start in range(0, len(retry), MAX_PER_RECEIVE):
            chunk = retry[start : start + MAX_PER_RECEIVE]
            entries = [
                {"Id": str(i), "ReceiptHandle": r["receiptHandle"], "VisibilityTimeout": self._backoff(r)}
                for i, r in enumerate(chunk)
            ]
            self._sqs.change_message_visibility_batch(QueueUrl=self._url, Entries=entries)  # type: ignore[arg-type]
        if retry:
            log.warning("%d of %d records failed; visible again in 1-2 s", len(retry), len(records))

    def _backoff(self, record: dict[str, Any]) -> int:
        # The queue's own visibility timeout (30 min here) is far too long to wait for locally.
        receives = int(record["attributes"].get("ApproximateReceiveCount", "1"))
        return self._retry_delay_s * min(receives, 2)
