"""The local stack's SQS (engram_tools.local.moto_sqs): FIFO batches as SQS fills them."""

from __future__ import annotations

import boto3
from moto import mock_aws

from engram_tools.local import moto_sqs


def test_a_fifo_receive_fills_its_batch_from_one_group_first_in_order() -> None:
    moto_sqs.install()
    with mock_aws():
        sqs = boto3.client("sqs", region_name="us-east-1")
        url = sqs.create_queue(QueueName="tasks.fifo", Attributes={"FifoQueue": "true"})["QueueUrl"]
        for n in range(12):  # two users' adds, interleaved as they arrive
            user = f"user-{n % 2}"
            sqs.send_message(
                QueueUrl=url, MessageBody=f"{user} add {n}", MessageGroupId=user, MessageDeduplicationId=str(n)
            )

        first = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]
        second = sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10).get("Messages", [])

    # user-0's six first, in order, then user-1's first four (not one message of each user in turn)
    assert [m["Body"] for m in first] == [f"user-0 add {n}" for n in range(0, 12, 2)] + [
        f"user-1 add {n}" for n in range(1, 9, 2)
    ]
    assert second == []  # both groups have messages in flight: FIFO holds the rest back
