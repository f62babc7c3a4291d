"""The local moto's TransactWriteItems: all or nothing as on DynamoDB, and a cancelled transaction
never undoes what other clients wrote meanwhile."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import boto3
import httpx
import pytest
from botocore.exceptions import ClientError

from engram_tools.local.moto_server import MotoServer

pytestmark = pytest.mark.e2e

TABLE = "tx-test"


@pytest.fixture
def db() -> Iterator[Any]:
    server = MotoServer()
    server.start()
    httpx.post(f"{server.endpoint}/moto-api/reset")
    client = boto3.client(
        "dynamodb",
        endpoint_url=server.endpoint,
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    client.create_table(
        TableName=TABLE,
        AttributeDefinitions=[{"AttributeName": "pk", "AttributeType": "S"}],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}],
        BillingMode="PAY_PER_REQUEST",
    )
    yield client
    httpx.post(f"{server.endpoint}/moto-api/reset")
    server.stop()


def put(pk: str, value: str, new_only: bool = False) -> dict[str, Any]:
    request: dict[str, Any] = {"TableName": TABLE, "Item": {"pk": {"S": pk}, "v": {"S": value}}}
    if new_only:
        request["ConditionExpression"] = "attribute_not_exists(pk)"
    return {"Put": request}


def value(db: Any, pk: str) -> str | None:
    item = db.get_item(TableName=TABLE, Key={"pk": {"S": pk}}).get("Item")
    return None if item is None else str(item["v"]["S"])


def test_a_cancelled_transaction_writes_nothing_and_a_good_one_everything(db: Any) -> None:
    db.transact_write_items(TransactItems=[put("a", "1"), put("b", "1")])
    with pytest.raises(ClientError) as cancelled:
        db.transact_write_items(TransactItems=[put("a", "2"), put("c", "2"), put("b", "2", new_only=True)])
    assert cancelled.value.response["Error"]["Code"] == "TransactionCanceledException"
    assert [value(db, k) for k in "abc"] == ["1", "1", None]  # a restored, c never written
    db.transact_write_items(TransactItems=[put("a", "3"), put("c", "3", new_only=True)])
    assert [value(db, k) for k in "abc"] == ["3", "1", "3"]


def test_cancelled_transactions_do_not_undo_other_clients_writes(db: Any) -> None:
    def writer(n: int) -> None:
        for i in range(20):
            db.transact_write_items(TransactItems=[put(f"w{n}-{i}", "x"), put(f"w{n}-{i}-h", "x")])

    def canceller() -> None:
        for i in range(40):
            try:
                db.transact_write_items(TransactItems=[put(f"c-{i}", "x"), put("w0-0", "y", new_only=True)])
            except ClientError:
                pass  # expected once w0-0 exists; what matters is what the rollback leaves

    db.transact_write_items(TransactItems=[put("w0-0", "x")])
    threads = [threading.Thread(target=writer, args=(n,)) for n in (1, 2, 3)] + [threading.Thread(target=canceller)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    written = [value(db, f"w{n}-{i}{h}") for n in (1, 2, 3) for i in range(20) for h in ("", "-h")]
    assert written == ["x"] * 120
    assert [value(db, f"c-{i}") for i in range(40)] == [None] * 40
