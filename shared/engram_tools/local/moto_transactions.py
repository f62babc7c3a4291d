"""moto's TransactWriteItems made proportional to the items it names, and one at a time.

moto backs up every table a transaction names (a deep copy of the whole table) before each
TransactWriteItems and puts the copy back when the transaction is cancelled. Each write then costs
time and memory in proportion to everything the table holds (10,000 memories: seconds and gigabytes
per transaction), and a rollback undoes whatever other threads wrote meanwhile. In the local stack
transactions run one at a time, moto's table copy is skipped, and a cancelled transaction restores
just the items it named: the same outcome as DynamoDB's, at the cost of the items touched.
"""

from __future__ import annotations

import copy
import threading
from collections.abc import Callable
from typing import Any

from moto.core.exceptions import JsonRESTError
from moto.dynamodb import models as dynamo_models
from moto.dynamodb.models import DynamoDBBackend
from moto.dynamodb.models.table import Table

_LOCK = threading.Lock()
Saved = tuple[str, dict[str, Any], dict[str, Any] | None]  # table, key, item before (None: absent)


class _CopyAllButTables:
    """Stands in for the `copy` module inside moto.dynamodb.models: tables are not copied."""

    def deepcopy(self, value: Any, memo: dict[int, Any] | None = None) -> Any:
        return value if isinstance(value, Table) else copy.deepcopy(value, memo)

    def __getattr__(self, name: str) -> Any:
        return getattr(copy, name)


def _snapshot(backend: DynamoDBBackend, transact_item: dict[str, Any]) -> Saved | None:
    """The named item as it is now; None when the request is malformed (moto rejects it itself)."""
    try:
        op_type, op = next(iter(transact_item.items()))
        table = backend.get_table(op["TableName"])
        if op_type == "Put":
            names = [table.hash_key_attr] + ([table.range_key_attr] if table.range_key_attr else [])
            key = {name: op["Item"][name] for name in names}
        else:
            key = op["Key"]
        item = backend.get_item(op["TableName"], key)
    except (KeyError, StopIteration, AttributeError, JsonRESTError):
        return None
    if item is None:
        return op["TableName"], key, None
    # to_json() builds new dicts (nested maps and lists copied); only set values are shared lists.
    saved = {
        name: {kind: list(v) if isinstance(v, list) else v for kind, v in value.items()}
        for name, value in item.to_json()["Attributes"].items()
    }
    return op["TableName"], key, saved


def _restore(backend: DynamoDBBackend, saved: Saved) -> None:
    table_name, key, attributes = saved
    if attributes is None:
        backend.delete_item(table_name, key)
    else:
        backend.put_item(table_name, attributes)


def install() -> None:
    """Replaces DynamoDBBackend.transact_write_items in this process (idempotent)."""
    if isinstance(getattr(dynamo_models, "copy", None), _CopyAllButTables):
        return
    original: Callable[[DynamoDBBackend, list[dict[str, Any]]], None] = DynamoDBBackend.transact_write_items

    def transact_write_items(self: DynamoDBBackend, transact_items: list[dict[str, Any]]) -> None:
        with _LOCK:
            saved = [s for s in (_snapshot(self, item) for item in transact_items[:100]) if s is not None]
            try:
                original(self, transact_items)
            except Exception:  # cancelled: put back what it named, then let moto's error through
                for entry in reversed(saved):
                    _restore(self, entry)
                raise

    setattr(dynamo_models, "copy", _CopyAllButTables())  # noqa: B010 - the module's `copy` global
    DynamoDBBackend.transact_write_items = transact_write_items  # type: ignore[method-assign]
