"""The local stack's tables on disk: snapshot + append-only log (engram_tools.local.table_log, persistence)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import pytest
from moto import mock_aws

from engram_tools.local import table_log
from engram_tools.local.change_tracker import ChangeTracker
from engram_tools.local.moto_server import MotoState
from engram_tools.local.names import ACCOUNT_ID
from engram_tools.local.persistence import Snapshotter, write_atomic
from engram_tools.local.table_log import TableFiles

REGION = "us-east-1"
TABLE = "Memories"


def _json(value: object) -> str:
    raise TypeError(type(value).__name__)


def files(tmp_path: Path, write: Any = None) -> TableFiles:
    return TableFiles(tmp_path, TABLE, write or (lambda p, d: write_atomic(p, d, sync=False)), _json)


def item(n: int, text: str = "x") -> dict[str, Any]:
    return {"pk": {"S": "u"}, "sk": {"S": f"m{n}"}, "text": {"S": text}}


def test_the_log_adds_its_changes_in_order_to_the_snapshot(tmp_path: Path) -> None:
    table = files(tmp_path)
    table.compact([item(1), item(2)])
    table.append([("put", item(3))])
    table.append([("delete", {"pk": {"S": "u"}, "sk": {"S": "m1"}}), ("put", item(3, "y"))])

    items, changes = files(tmp_path).load()

    assert items == [item(1), item(2)]
    assert changes == [("put", item(3)), ("delete", {"pk": {"S": "u"}, "sk": {"S": "m1"}}), ("put", item(3, "y"))]


def test_a_line_cut_short_by_a_crash_is_skipped(tmp_path: Path) -> None:
    table = files(tmp_path)
    table.compact([item(1)])
    table.append([("put", item(2))])
    with table.log.open("ab") as f:
        f.write(json.dumps({"put": item(3)}).encode()[:25])  # the process died mid-write

    items, changes = files(tmp_path).load()

    assert items == [item(1)] and changes == [("put", item(2))]


def test_compaction_empties_the_log_and_a_crash_midway_keeps_the_new_snapshot_alone(tmp_path: Path) -> None:
    table = files(tmp_path)
    table.compact([item(1)])
    table.append([("put", item(1, "old"))])
    table.compact([item(1, "new"), item(2)])
    assert files(tmp_path).load() == ([item(1, "new"), item(2)], [])

    table.append([("put", item(1, "older"))])

    def crash_before_the_log(path: Path, data: bytes) -> None:
        if path.suffix == ".log":
            raise OSError("killed")
        write_atomic(path, data, sync=False)

    with pytest.raises(OSError):
        files(tmp_path, crash_before_the_log).compact([item(1, "newest")])
    # The old log predates the new snapshot: replaying it would bring back "older".
    assert files(tmp_path).load() == ([item(1, "newest")], [])


def test_a_snapshot_from_before_the_log_is_read_whole(tmp_path: Path) -> None:
    (tmp_path / f"{TABLE}.jsonl").write_text(json.dumps(item(1)) + "\n" + json.dumps(item(2)) + "\n")
    (tmp_path / f"{TABLE}.log").write_text(json.dumps({"put": item(3)}) + "\n")  # no epoch: not ours

    assert files(tmp_path).load() == ([item(1), item(2)], [])


def test_the_log_is_compacted_once_it_outgrows_its_snapshot(tmp_path: Path, monkeypatch: Any) -> None:
    monkeypatch.setattr(table_log, "_MIN_COMPACT_BYTES", 0)
    table = files(tmp_path)
    assert table.compaction_due()  # never compacted: no epoch to append under
    table.compact([item(n) for n in range(10)])
    table.append([("put", item(n, "y")) for n in range(5)])
    assert not table.compaction_due()
    table.append([("put", item(n, "z")) for n in range(10)])
    assert table.compaction_due()


# ------------------------------------------------------------------ through moto and the snapshotter


@pytest.fixture
def dynamo() -> Iterator[Any]:
    with mock_aws():
        client = boto3.client("dynamodb", region_name=REGION)
        client.create_table(
            TableName=TABLE,
            KeySchema=[{"AttributeName": "pk", "KeyType": "HASH"}, {"AttributeName": "sk", "KeyType": "RANGE"}],
            AttributeDefinitions=[
                {"AttributeName": "pk", "AttributeType": "S"},
                {"AttributeName": "sk", "AttributeType": "S"},
            ],
            BillingMode="PAY_PER_REQUEST",
        )
        yield client


def snapshotter(tmp_path: Path, tracker: ChangeTracker) -> Snapshotter:
    clients: Any = (None, None)  # no buckets or queues here
    return Snapshotter(tmp_path, [TABLE], [], {}, clients, MotoState(REGION, ACCOUNT_ID), tracker)


def _fresh_table(client: Any) -> None:
    for entry in client.scan(TableName=TABLE)["Items"]:
        client.delete_item(TableName=TABLE, Key={"pk": entry["pk"], "sk": entry["sk"]})


def test_puts_updates_and_deletions_saved_item_by_item_are_restored(tmp_path: Path, dynamo: Any) -> None:
    tracker = ChangeTracker()
    saver = snapshotter(tmp_path, tracker)
    saver.restore()  # nothing saved yet
    for n in range(3):
        dynamo.put_item(TableName=TABLE, Item=item(n))
    tracker.mark_keys({TABLE: [item(n) for n in range(3)]})
    saver.flush()
    key = {"pk": {"S": "u"}, "sk": {"S": "m1"}}
    dynamo.delete_item(TableName=TABLE, Key=key)
    dynamo.update_item(
        TableName=TABLE,
        Key={"pk": {"S": "u"}, "sk": {"S": "m2"}},
        UpdateExpression="SET #t = :t",
        ExpressionAttributeNames={"#t": "text"},
        ExpressionAttributeValues={":t": {"S": "edited"}},
    )
    tracker.mark_keys({TABLE: [key, {"pk": {"S": "u"}, "sk": {"S": "m2"}}]})
    saver.flush()
    snapshot_before = (tmp_path / "moto" / "dynamodb" / f"{TABLE}.jsonl").read_bytes()
    assert len((tmp_path / "moto" / "dynamodb" / f"{TABLE}.log").read_text().splitlines()) == 1 + 3 + 2

    _fresh_table(dynamo)
    counts = snapshotter(tmp_path, ChangeTracker()).restore()

    assert snapshot_before.count(b"\n") == 1  # flushes appended; the snapshot (just the epoch) stayed
    assert counts[TABLE] == 2
    assert sorted((i["sk"]["S"], i["text"]["S"]) for i in dynamo.scan(TableName=TABLE)["Items"]) == [
        ("m0", "x"),
        ("m2", "edited"),
    ]


def test_a_restore_after_a_torn_line_keeps_what_came_before_and_saves_on(tmp_path: Path, dynamo: Any) -> None:
    tracker = ChangeTracker()
    saver = snapshotter(tmp_path, tracker)
    saver.restore()
    dynamo.put_item(TableName=TABLE, Item=item(1))
    tracker.mark_keys({TABLE: [item(1)]})
    saver.flush()
    with (tmp_path / "moto" / "dynamodb" / f"{TABLE}.log").open("ab") as f:
        f.write(b'{"put": {"pk": {"S": "u"}, "sk"')  # killed mid-append

    _fresh_table(dynamo)
    tracker = ChangeTracker()
    saver = snapshotter(tmp_path, tracker)
    assert saver.restore()[TABLE] == 1
    dynamo.put_item(TableName=TABLE, Item=item(2))
    tracker.mark_keys({TABLE: [item(2)]})
    saver.flush()  # appends to a fresh log, not after the torn line

    _fresh_table(dynamo)
    assert snapshotter(tmp_path, ChangeTracker()).restore()[TABLE] == 2


def test_the_tracker_names_the_items_each_write_touches() -> None:
    tracker = ChangeTracker()
    key = {"pk": {"S": "u"}, "sk": {"S": "m1"}}

    def observe(operation: str, body: dict[str, Any]) -> None:
        environ = {"REQUEST_METHOD": "POST", "HTTP_X_AMZ_TARGET": f"DynamoDB_20120810.{operation}"}
        tracker.observe(environ, json.dumps(body).encode())

    observe("PutItem", {"TableName": "A", "Item": item(0)})
    observe("DeleteItem", {"TableName": "A", "Key": key})
    observe("Query", {"TableName": "C", "KeyConditionExpression": "pk = :p"})
    observe(
        "BatchWriteItem", {"RequestItems": {"B": [{"PutRequest": {"Item": item(2)}}, {"DeleteRequest": {"Key": key}}]}}
    )
    observe(
        "TransactWriteItems",
        {
            "TransactItems": [
                {"Update": {"TableName": "A", "Key": key}},
                {"ConditionCheck": {"TableName": "C", "Key": key}},
            ]
        },
    )
    observe("ExecuteStatement", {"Statement": "DELETE FROM D"})

    changes, s3 = tracker.take()

    assert changes.keys == {"A": [item(0), key, key], "B": [item(2), key]}
    assert changes.whole is None  # PartiQL: which table is unknown, so every one is rewritten
    assert not s3 and tracker.take()[0].keys == {}


def test_queue_sends_and_deletes_are_logged_and_restored_in_order(tmp_path: Path) -> None:
    with mock_aws():
        sqs = boto3.client("sqs", region_name=REGION)
        url = sqs.create_queue(QueueName="tasks")["QueueUrl"]

        def saver() -> Snapshotter:
            state = MotoState(REGION, ACCOUNT_ID)
            return Snapshotter(tmp_path, [], [], {"tasks": url}, (None, sqs), state, ChangeTracker())  # type: ignore[arg-type]

        first = saver()
        first.restore()
        for body in ("m1", "m2", "m3"):
            sqs.send_message(QueueUrl=url, MessageBody=body)
        first.flush()
        handle = next(
            m for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"] if m["Body"] == "m2"
        )
        sqs.delete_message(QueueUrl=url, ReceiptHandle=handle["ReceiptHandle"])
        sqs.send_message(QueueUrl=url, MessageBody="m4")
        first.flush()
        log_lines = (tmp_path / "moto" / "sqs" / "tasks.log").read_text().splitlines()
        assert len(log_lines) == 1 + 3 + 2  # header, three sends, a delete and a send: no rewrite

        sqs.delete_queue(QueueUrl=url)
        url = sqs.create_queue(QueueName="tasks")["QueueUrl"]
        assert saver().restore()["tasks"] == 3

        bodies = [m["Body"] for m in sqs.receive_message(QueueUrl=url, MaxNumberOfMessages=10)["Messages"]]
        assert bodies == ["m1", "m3", "m4"]
