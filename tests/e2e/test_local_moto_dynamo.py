"""The local moto's faster DynamoDB (moto_dynamo.py) still answers as DynamoDB does: index pages in key
order both ways, binary values intact, conditions evaluated per item, the item size limit kept."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import boto3
import httpx
import pytest
from botocore.exceptions import ClientError

from engram_tools.local.moto_server import MotoServer

pytestmark = pytest.mark.e2e

TABLE = "patched"


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
        AttributeDefinitions=[
            {"AttributeName": name, "AttributeType": kind}
            for name, kind in (("pk", "S"), ("sk", "S"), ("g", "S"), ("n", "N"))
        ],
        KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
        GlobalSecondaryIndexes=[
            {
                "IndexName": "by_g",
                "KeySchema": [{"AttributeName": "g", "KeyType": "HASH"}, {"AttributeName": "n", "KeyType": "RANGE"}],
                "Projection": {"ProjectionType": "ALL"},
            }
        ],
        BillingMode="PAY_PER_REQUEST",
    )
    yield client
    server.stop()


def _pages(db: Any, **query: Any) -> list[str]:
    seen: list[str] = []
    while True:
        resp = db.query(TableName=TABLE, **query)
        seen += [f"{i['pk']['S']}/{i['sk']['S']}" for i in resp["Items"]]
        if "LastEvaluatedKey" not in resp:
            return seen
        query["ExclusiveStartKey"] = resp["LastEvaluatedKey"]


def test_index_and_table_queries_page_in_key_order_both_ways(db: Any) -> None:
    # Numbers that sort differently as text (10 < 9), ties broken by the table key, other partitions.
    for i, n in enumerate([10, 9, 9, -1, 100, 2.5, 9]):
        item = {"pk": {"S": f"p{i % 3}"}, "sk": {"S": f"s{i}"}, "g": {"S": "G"}, "n": {"N": str(n)}}
        db.put_item(TableName=TABLE, Item=item)
        db.put_item(TableName=TABLE, Item={**item, "sk": {"S": f"other{i}"}, "g": {"S": "H"}})
    by_g = {"IndexName": "by_g", "KeyConditionExpression": "g = :g", "ExpressionAttributeValues": {":g": {"S": "G"}}}
    forward = _pages(db, **by_g, Limit=2)
    assert forward == ["p0/s3", "p2/s5", "p0/s6", "p1/s1", "p2/s2", "p0/s0", "p1/s4"]
    assert _pages(db, **by_g, Limit=3, ScanIndexForward=False) == forward[::-1]
    in_table = {"KeyConditionExpression": "pk = :p", "ExpressionAttributeValues": {":p": {"S": "p1"}}}
    assert _pages(db, **in_table, Limit=1) == ["p1/other1", "p1/other4", "p1/s1", "p1/s4"]
    assert _pages(db, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "none"}}) == []


def test_binary_values_come_back_as_they_went_in(db: Any) -> None:
    blob, blobs = b"\x00\xffbinary", [b"\x01", b"two"]
    item = {"pk": {"S": "b"}, "sk": {"S": "1"}, "g": {"S": "G"}, "n": {"N": "1"}, "v": {"B": blob}, "s": {"BS": blobs}}
    db.transact_write_items(TransactItems=[{"Put": {"TableName": TABLE, "Item": item}}])
    got = db.get_item(TableName=TABLE, Key={"pk": {"S": "b"}, "sk": {"S": "1"}})["Item"]
    assert got["v"]["B"] == blob and sorted(got["s"]["BS"]) == sorted(blobs)
    (queried,) = db.query(
        TableName=TABLE, KeyConditionExpression="pk = :p", ExpressionAttributeValues={":p": {"S": "b"}}
    )["Items"]
    assert queried == got


def test_conditions_are_evaluated_against_each_item_and_value(db: Any) -> None:
    key = {"pk": {"S": "c"}, "sk": {"S": "1"}}
    db.put_item(TableName=TABLE, Item={**key, "version": {"N": "1"}})
    condition = {"ConditionExpression": "#v = :expected", "ExpressionAttributeNames": {"#v": "version"}}
    db.put_item(
        TableName=TABLE,
        Item={**key, "version": {"N": "2"}},
        **condition,
        ExpressionAttributeValues={":expected": {"N": "1"}},
    )
    with pytest.raises(ClientError, match="ConditionalCheckFailed"):  # the same text, now false
        db.put_item(
            TableName=TABLE,
            Item={**key, "version": {"N": "3"}},
            **condition,
            ExpressionAttributeValues={":expected": {"N": "1"}},
        )
    db.put_item(
        TableName=TABLE,
        Item={**key, "version": {"N": "3"}},
        **condition,
        ExpressionAttributeValues={":expected": {"N": "2"}},
    )
    assert db.get_item(TableName=TABLE, Key=key)["Item"]["version"] == {"N": "3"}


def test_an_item_over_400_kb_is_still_refused(db: Any) -> None:
    attributes = {f"a{i}": {"S": "x" * 50_000} for i in range(9)}
    with pytest.raises(ClientError, match="size"):
        db.put_item(TableName=TABLE, Item={"pk": {"S": "big"}, "sk": {"S": "1"}, **attributes})
    db.put_item(TableName=TABLE, Item={"pk": {"S": "ok"}, "sk": {"S": "1"}, **dict(list(attributes.items())[:7])})
