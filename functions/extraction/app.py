"""Extraction function: SQS FIFO batches -> the memory pipeline, with partial batch failures.

Order within a message group (one tenant + user) is kept: after a failure the rest of that group
is returned to the queue, other groups go on. Each message is processed at most once (Powertools
idempotency on the message id); after the queue's last receive the task is marked failed and the
message goes to the dead-letter queue.
"""

from __future__ import annotations

import os
from typing import Any

from aws_lambda_powertools import Logger, Tracer
from aws_lambda_powertools.utilities.batch import SqsFifoPartialProcessor, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.bootstrap import container
from engram.queue_message import TaskMessage

logger = Logger()
tracer = Tracer()
processor = SqsFifoPartialProcessor(skip_group_on_error=True)
# Report every failed record, even when all of them failed, instead of failing the invocation:
# the outcome for the queue is the same and the response always says which records to retry.
processor.raise_on_entire_batch_failure = False
MAX_RECEIVES = int(os.environ.get("ENGRAM_MAX_RECEIVES", "3"))

persistence = DynamoDBPersistenceLayer(
    table_name=container().settings.idempotency_table, boto3_client=container().aws.dynamodb
)
idempotency = IdempotencyConfig(event_key_jmespath="messageId", raise_on_no_idempotency_key=True)


@idempotent_function(data_keyword_argument="record", persistence_store=persistence, config=idempotency)
def process_message(record: dict[str, Any]) -> dict[str, str]:
    message = TaskMessage.model_validate_json(record["body"])
    receives = int(record.get("attributes", {}).get("ApproximateReceiveCount", "1"))
    task = container().worker.process(message.tenant_id, message.task_id, final_attempt=receives >= MAX_RECEIVES)
    return {"task_id": task.task_id, "status": task.status.value}


def record_handler(record: SQSRecord) -> dict[str, str]:
    result: dict[str, str] = process_message(record=record.raw_event)
    return result


@logger.inject_lambda_context
@tracer.capture_lambda_handler
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    idempotency.register_lambda_context(context)
    response = process_partial_response(
        event=event, record_handler=record_handler, processor=processor, context=context
    )
    return dict(response)
