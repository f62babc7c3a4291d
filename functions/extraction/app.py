"""Extraction function: SQS FIFO batches -> the memory pipeline, with partial batch failures.

Order within a message group (one tenant + user) is kept: after a failure the rest of that group
is returned to the queue, other groups go on. Consecutive messages of one group in a batch are
extracted together (one LLM run for all of them). Each message is processed at most once
(Powertools idempotency on the message id); after the queue's last receive the task is marked
failed and the message goes to the dead-letter queue. While the LLM circuit breaker is open or the
search index is down, tasks wait instead: their message goes back to the queue, and on its last
receive a fresh message replaces it, so an outage costs no task and fills no DLQ.
"""

from __future__ import annotations

from typing import Any

from aws_lambda_powertools import Logger
from aws_lambda_powertools.utilities.batch import SqsFifoPartialProcessor, process_partial_response
from aws_lambda_powertools.utilities.data_classes.sqs_event import SQSRecord
from aws_lambda_powertools.utilities.idempotency import (
    DynamoDBPersistenceLayer,
    IdempotencyConfig,
    idempotent_function,
)
from aws_lambda_powertools.utilities.typing import LambdaContext

from engram.bootstrap import container
from engram.domain.errors import OutageError
from engram.domain.task_message import TaskMessage

logger = Logger()
processor = SqsFifoPartialProcessor(skip_group_on_error=True)
# Report every failed record, even when all of them failed, instead of failing the invocation:
# the outcome for the queue is the same and the response always says which records to retry.
processor.raise_on_entire_batch_failure = False

container().settings.require("memory_table", "tasks_table", "idempotency_table", "bucket")
persistence = DynamoDBPersistenceLayer(
    table_name=container().settings.idempotency_table, boto3_client=container().aws.dynamodb
)
idempotency = IdempotencyConfig(event_key_jmespath="messageId", raise_on_no_idempotency_key=True)


# For each message id, the (message id, task id) of the records after it in its message group within
# the current batch; and the records whose task a run of an earlier record finished in this batch.
_following: dict[str, list[tuple[str, str]]] = {}
_settled: dict[str, dict[str, str]] = {}


def plan_runs(records: list[dict[str, Any]]) -> dict[str, list[tuple[str, str]]]:
    """Each record with the (message id, task id) of the records after it in the same group, in order."""
    by_group: dict[str, list[tuple[str, str | None]]] = {}
    for record in records:
        group = record.get("attributes", {}).get("MessageGroupId", record["messageId"])
        try:
            task_id: str | None = TaskMessage.model_validate_json(record["body"]).task_id
        except ValueError:
            task_id = None  # reported by its own record handler
        by_group.setdefault(group, []).append((record["messageId"], task_id))
    plan: dict[str, list[tuple[str, str]]] = {}
    for members in by_group.values():
        for i, (message_id, _) in enumerate(members):
            tail: list[tuple[str, str]] = []
            for follower, task_id in members[i + 1 :]:
                if task_id is None:
                    break
                tail.append((follower, task_id))
            plan[message_id] = tail
    return plan


@idempotent_function(data_keyword_argument="record", persistence_store=persistence, config=idempotency)
def process_message(record: dict[str, Any]) -> dict[str, str]:
    message = TaskMessage.model_validate_json(record["body"])
    receives = int(record.get("attributes", {}).get("ApproximateReceiveCount", "1"))
    followers = _following.get(record["messageId"], [])
    task_ids = [message.task_id, *(task_id for _, task_id in followers)]
    final = receives >= container().settings.max_receives
    try:
        tasks = container().worker.process_many(message.tenant_id, task_ids, final_attempt=final)
    except OutageError:  # the LLM breaker open or the index down: the task waits
        if not final:
            raise  # back to the queue, visible again after its visibility timeout
        # The last receive before the DLQ: a fresh message (receive count 0) takes over, so an
        # outage never dead-letters a task; this one is then acknowledged.
        container().queue.requeue(container().tasks.get(message.tenant_id, message.task_id))
        return {"task_id": message.task_id, "status": "waiting"}
    status = {t.task_id: t.status.value for t in tasks}
    for follower, task_id in followers:
        if status.get(task_id) in ("completed", "failed"):
            _settled[follower] = {"task_id": task_id, "status": status[task_id]}
    return {"task_id": tasks[0].task_id, "status": tasks[0].status.value}


def record_handler(record: SQSRecord) -> dict[str, str]:
    # A record whose task the run of an earlier record of its group already finished needs no
    # idempotency record of its own (two DynamoDB writes and a task read per record): redelivered,
    # the worker finds its task finished and leaves it.
    settled = _settled.get(record.message_id)
    if settled is not None:
        return settled
    result: dict[str, str] = process_message(record=record.raw_event)
    return result


# No Powertools Tracer (as in the API function): the X-Ray SDK it loads was a third of this
# function's import time; Lambda's active tracing (template.yaml) still records each invocation.
@logger.inject_lambda_context(log_event=False)  # the event carries the API key or user content
def lambda_handler(event: dict[str, Any], context: LambdaContext) -> dict[str, Any]:
    idempotency.register_lambda_context(context)
    _following.clear()
    _settled.clear()
    _following.update(plan_runs(event.get("Records", [])))
    try:
        response = process_partial_response(
            event=event, record_handler=record_handler, processor=processor, context=context
        )
    finally:
        container().metrics.flush()  # the batch's metrics: one EMF line per invocation
    return dict(response)
