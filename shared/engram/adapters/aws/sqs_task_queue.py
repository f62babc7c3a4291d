"""TaskQueue on an SQS FIFO queue: one message group per tenant + user, deduplicated by task id."""

from __future__ import annotations

import hashlib
import re
import uuid
from typing import TYPE_CHECKING

from engram.adapters.aws.clients import aws_errors
from engram.domain.models import Task
from engram.domain.task_message import TaskMessage

if TYPE_CHECKING:
    from mypy_boto3_sqs.client import SQSClient

# What SQS accepts in MessageGroupId / MessageDeduplicationId: 1-128 ASCII letters, digits, punctuation.
_SQS_ID = re.compile(r"^[A-Za-z0-9!\"#$%&'()*+,\-./:;<=>?@\[\\\]^_`{|}~]{1,128}$")


def _sqs_id(value: str) -> str:
    """`value` when SQS accepts it, else a stable digest (user ids may be long or non-ASCII).

    A digest keeps the mapping deterministic, so one user's messages still share one group.
    """
    if _SQS_ID.match(value):
        return value
    return "sha256:" + hashlib.sha256(value.encode("utf-8")).hexdigest()


def message_group_id(tenant_id: str, user_id: str) -> str:
    return _sqs_id(f"{tenant_id}#{user_id}")


class SqsTaskQueue:
    def __init__(self, client: SQSClient, queue_url: str) -> None:
        self._sqs = client
        self._queue_url = queue_url

    def enqueue(self, task: Task) -> None:
        self._send(task, task.task_id)

    def requeue(self, task: Task) -> None:
        # A new deduplication id, or SQS would drop it as a copy of the first message.
        self._send(task, f"{task.task_id}.{uuid.uuid4().hex[:12]}")

    def pending(self) -> int:
        with aws_errors(self._queue_url):
            attributes = self._sqs.get_queue_attributes(
                QueueUrl=self._queue_url, AttributeNames=["ApproximateNumberOfMessages"]
            )["Attributes"]
        return int(attributes.get("ApproximateNumberOfMessages", "0"))

    def _send(self, task: Task, dedup_id: str) -> None:
        body = TaskMessage(tenant_id=task.tenant_id, task_id=task.task_id, user_id=task.user_id)
        with aws_errors(self._queue_url):
            self._sqs.send_message(
                QueueUrl=self._queue_url,
                MessageBody=body.model_dump_json(),
                MessageGroupId=message_group_id(task.tenant_id, task.user_id),
                MessageDeduplicationId=_sqs_id(dedup_id),
            )
