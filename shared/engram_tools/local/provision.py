"""Create the template's tables, queues, buckets and event buses in moto, idempotently, under local physical names."""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from botocore.exceptions import ClientError

from engram_tools.local.names import physical_name
from engram_tools.local.template import Queue, Table, Template

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient
    from mypy_boto3_s3.client import S3Client
    from mypy_boto3_sqs.client import SQSClient

log = logging.getLogger("engram_tools.local")


@dataclass
class Provisioned:
    """Physical names by logical id. `ref()` answers what CloudFormation's !Ref would."""

    tables: dict[str, str] = field(default_factory=dict)
    buckets: dict[str, str] = field(default_factory=dict)
    queue_urls: dict[str, str] = field(default_factory=dict)
    queue_arns: dict[str, str] = field(default_factory=dict)
    event_buses: dict[str, str] = field(default_factory=dict)

    def ref(self, logical_id: str) -> str:
        for names in (self.tables, self.buckets, self.queue_urls, self.event_buses):  # a queue's !Ref: its URL
            if logical_id in names:
                return names[logical_id]
        raise KeyError(f"{logical_id} is not a provisioned resource")


def _code(err: ClientError) -> str:
    return str(err.response.get("Error", {}).get("Code", ""))


def create_table(db: DynamoDBClient, table: Table, name: str) -> None:
    params: dict[str, Any] = {
        "TableName": name,
        "AttributeDefinitions": table.attribute_definitions,
        "KeySchema": table.key_schema,
        "BillingMode": "PAY_PER_REQUEST",
    }
    if table.global_secondary_indexes:
        params["GlobalSecondaryIndexes"] = [
            {k: v for k, v in gsi.items() if k != "ProvisionedThroughput"} for gsi in table.global_secondary_indexes
        ]
    try:
        db.create_table(**params)
    except ClientError as err:
        if _code(err) != "ResourceInUseException":
            raise
        return  # exists already, TTL included
    if table.ttl_attribute:
        db.update_time_to_live(
            TableName=name, TimeToLiveSpecification={"AttributeName": table.ttl_attribute, "Enabled": True}
        )


def create_queue(sqs: SQSClient, queue: Queue, name: str, dead_letter_arn: str | None) -> tuple[str, str]:
    """Creates the queue unless it exists; returns (url, arn)."""
    try:
        url = sqs.get_queue_url(QueueName=name)["QueueUrl"]
    except ClientError as err:
        if _code(err) not in ("AWS.SimpleQueueService.NonExistentQueue", "QueueDoesNotExist"):
            raise
        attributes = dict(queue.attributes)
        if dead_letter_arn is not None:
            attributes["RedrivePolicy"] = json.dumps(
                {"deadLetterTargetArn": dead_letter_arn, "maxReceiveCount": queue.max_receive_count or 1}
            )
        url = sqs.create_queue(QueueName=name, Attributes=attributes)["QueueUrl"]  # type: ignore[arg-type]
    arn = sqs.get_queue_attributes(QueueUrl=url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
    return url, arn


def create_bucket(s3: S3Client, name: str, versioned: bool) -> None:
    try:
        s3.create_bucket(Bucket=name)
    except ClientError as err:
        if _code(err) not in ("BucketAlreadyOwnedByYou", "BucketAlreadyExists"):
            raise
    if versioned:
        s3.put_bucket_versioning(Bucket=name, VersioningConfiguration={"Status": "Enabled"})


def _queue_order(queues: dict[str, Queue]) -> list[Queue]:
    """Dead-letter queues before the queues that redrive to them (their ARN is needed first)."""
    ordered: list[Queue] = []

    def visit(queue: Queue, seen: tuple[str, ...]) -> None:
        if queue in ordered:
            return
        if queue.logical_id in seen:
            raise ValueError(f"redrive cycle through {queue.logical_id}")
        if queue.dead_letter_queue is not None:
            visit(queues[queue.dead_letter_queue], (*seen, queue.logical_id))
        ordered.append(queue)

    for queue in queues.values():
        visit(queue, ())
    return ordered


def create_event_bus(events: Any, name: str) -> None:
    try:
        events.create_event_bus(Name=name)
    except ClientError as err:
        if _code(err) != "ResourceAlreadyExistsException":
            raise


def provision(
    template: Template, db: DynamoDBClient, sqs: SQSClient, s3: S3Client, events: Any | None = None
) -> Provisioned:
    out = Provisioned()
    for table in template.tables.values():
        name = physical_name(table.logical_id)
        create_table(db, table, name)
        out.tables[table.logical_id] = name
    for queue in _queue_order(template.queues):
        dlq_arn = out.queue_arns[queue.dead_letter_queue] if queue.dead_letter_queue else None
        url, arn = create_queue(sqs, queue, physical_name(queue.logical_id, queue.fifo), dlq_arn)
        out.queue_urls[queue.logical_id] = url
        out.queue_arns[queue.logical_id] = arn
    for bucket in template.buckets.values():
        name = physical_name(bucket.logical_id)
        create_bucket(s3, name, bucket.versioned)
        out.buckets[bucket.logical_id] = name
    for logical_id in template.event_buses if events is not None else ():
        name = physical_name(logical_id)
        create_event_bus(events, name)  # moto's bus: users' rules on it route to its SQS queues
        out.event_buses[logical_id] = name
    log.info("provisioned %d tables, %d queues, %d buckets", len(out.tables), len(out.queue_urls), len(out.buckets))
    return out
