"""moto's DynamoDB reads answered at the cost of the items they return.

Two costs that grow with the data and dominate bulk work locally (delete-all of 10,000 memories):

- Responses are serialized by moto's model-driven serializer, which walks the botocore shape of
  every attribute of every item: about 40% of the CPU of paging through a user's memories. The
  results of the item-reading operations are already DynamoDB's JSON (moto converts DynamoType
  values to {type: value} dicts first), so they are written with json.dumps; anything the plain
  encoder does not know (a timestamp) falls back to moto's serializer.
- Every Query starts from Table.all_items(): all items of the table, sorted by primary key (with
  the DynamoType comparisons below), then filtered to the partition asked for, then sorted again.
  Here a Query on the table starts from its partition alone, and one on an index from the items
  unsorted (its results are sorted by the index's full key afterwards, so the order in is moot).
  Scans, whose paging follows all_items' order, keep it, sorted with converted keys.
- A Query on an index sorts the partition's items with a key of DynamoType tuples, whose every
  comparison converts both values again (a Decimal for a number): sorting a user's 10,000 memories
  took most of a second. Here each item's key values are converted once, which orders the same way
  (key attributes are scalars of one declared type, compared by those same converted values).

Requests of those operations are read with json.loads too, instead of moto's model-driven parser (15%
of moto's time in a delete-all): the two agree but for binary values, which the parser decodes from
base64, and so does _binary here.

And two costs per item written (a delete-all writes 20,000): an Item's attributes were set one at a
time, each re-adding the size of all the others to check the 400 KB limit (quadratic in the number of
attributes); the same total is now checked once. And every condition expression was parsed again for
every item, though a batch repeats one: parsed conditions (stateless trees) are kept, by their text,
names and values.
"""

from __future__ import annotations

import base64
import functools
import json
import threading
from collections.abc import Callable
from typing import Any

from moto.dynamodb import comparisons
from moto.dynamodb import models as dynamo_models
from moto.dynamodb.exceptions import ItemSizeTooLarge
from moto.dynamodb.models import table as table_module
from moto.dynamodb.models.dynamo_type import DynamoType, Item, LimitedSizeDict
from moto.dynamodb.models.table import Table
from moto.dynamodb.models.utilities import bytesize
from moto.dynamodb.responses import DynamoHandler, DynamoResult

_JSON_RESULTS = frozenset({"Query", "Scan", "GetItem", "BatchGetItem", "TransactGetItems"})
_CONTENT_TYPE = "application/x-amz-json-1.0"
_JSON_REQUESTS = _JSON_RESULTS | {"PutItem", "UpdateItem", "DeleteItem", "BatchWriteItem", "TransactWriteItems"}


def _encode_bytes(value: object) -> str:
    if isinstance(value, bytes | bytearray):
        return base64.b64encode(bytes(value)).decode("ascii")
    raise TypeError(type(value).__name__)


def _dumps(result: Any) -> str | None:
    """The JSON body moto's serializer would write for `result`, or None when it holds other types."""
    if not isinstance(result, dict):
        return None
    try:
        return json.dumps({k: v for k, v in result.items() if v is not None}, default=_encode_bytes)
    except TypeError:
        return None


def _sorted_items(
    self: Table, hash_key_attrs: list[str], range_key_attrs: list[str | None], items: list[Item]
) -> list[Item]:
    attrs = self._generate_attr_to_sort_by(hash_key_attrs, range_key_attrs)
    items.sort(key=lambda item: tuple(item.attrs[attr].cast_value for attr in attrs))
    return items


_QUERY = threading.local()  # items a Query in progress on this thread starts from (moto: one thread per request)


def _items(table: Table) -> list[Item]:
    if table.range_key_attr:
        return [item for group in list(table.items.values()) for item in list(group.values())]
    return list(table.items.values())  # type: ignore[arg-type]


def _all_items(self: Table) -> list[Item]:
    override: list[Item] | None = getattr(_QUERY, "items", None)
    if override is not None:
        return override
    if self.range_key_attr:
        return sorted(_items(self), key=lambda x: (x.hash_key.cast_value, x.range_key.cast_value))  # type: ignore[union-attr]
    return sorted(_items(self), key=lambda x: x.hash_key.cast_value)


def _query(original: Callable[..., Any]) -> Callable[..., Any]:
    def query(self: Table, hash_key: Any, *args: Any, **kwargs: Any) -> Any:
        # Table.query(hash_key, range_comparison, range_objs, limit, exclusive_start_key,
        # scan_index_forward, projection_expressions, index_name=None, ...): moto passes it by position.
        index_name = args[6] if len(args) > 6 else kwargs.get("index_name")
        if index_name:
            _QUERY.items = _items(self)
        else:
            group = self.items.get(hash_key) if hash_key is not None else None
            _QUERY.items = [] if group is None else list(group.values()) if self.range_key_attr else [group]
        try:
            return original(self, hash_key, *args, **kwargs)
        finally:
            _QUERY.items = None

    query._engram_original = original  # type: ignore[attr-defined]
    return query


_MAX_ITEM_BYTES = 405_000  # moto's own limit (DynamoDB's 400 KB, as measured)


def _item_init(self: Item, hash_key: DynamoType, range_key: DynamoType | None, attrs: dict[str, Any]) -> None:
    self.hash_key = hash_key
    self.range_key = range_key
    values = {key: DynamoType(value) for key, value in attrs.items()}
    if sum(bytesize(key) + value.size() for key, value in values.items()) > _MAX_ITEM_BYTES:
        raise ItemSizeTooLarge
    self.attrs = LimitedSizeDict()
    dict.update(self.attrs, values)  # checked above; LimitedSizeDict checks later sets itself


@functools.lru_cache(maxsize=1024)
def _parsed(expr: str | None, names: str, values: str) -> Any:
    return comparisons.get_filter_expression(expr, json.loads(names), json.loads(values))


def _get_filter_expression(expr: str | None, names: dict[str, str] | None, values: dict[str, Any] | None) -> Any:
    try:
        key = (json.dumps(names, sort_keys=True), json.dumps(values, sort_keys=True))
    except TypeError:  # values that are not plain JSON: parse them as moto would
        return comparisons.get_filter_expression(expr, names, values)
    return _parsed(expr, *key)


def _binary(value: Any) -> Any:
    """`value` with the base64 text of every B and BS attribute value decoded, as moto's parser does."""
    if isinstance(value, list):
        return [_binary(v) for v in value]
    if not isinstance(value, dict):
        return value
    if len(value) == 1:
        ((kind, inner),) = value.items()
        if kind == "B" and isinstance(inner, str):
            return {"B": base64.b64decode(inner)}
        if kind == "BS" and isinstance(inner, list) and all(isinstance(v, str) for v in inner):
            return {"BS": [base64.b64decode(v) for v in inner]}
    return {k: _binary(v) for k, v in value.items()}


def _parse_parameters(original: Callable[..., Any]) -> Callable[..., Any]:
    def parse_parameters(self: DynamoHandler, request: Any) -> None:
        if self._get_action() in _JSON_REQUESTS:
            try:
                body = json.loads(request.data or b"{}")
            except ValueError:
                body = None
            if isinstance(body, dict):
                self.params = _binary(body)
                return
        original(self, request)

    parse_parameters._engram_original = original  # type: ignore[attr-defined]
    return parse_parameters


def install() -> None:
    """Replaces the moto methods and functions named above in this process (idempotent)."""
    Table.sorted_items = _sorted_items  # type: ignore[method-assign]
    parse = getattr(DynamoHandler.parse_parameters, "_engram_original", DynamoHandler.parse_parameters)
    DynamoHandler.parse_parameters = _parse_parameters(parse)  # type: ignore[method-assign]
    Item.__init__ = _item_init  # type: ignore[method-assign]
    dynamo_models.get_filter_expression = _get_filter_expression  # type: ignore[attr-defined]
    table_module.get_filter_expression = _get_filter_expression  # type: ignore[attr-defined]
    Table.all_items = _all_items  # type: ignore[method-assign]
    Table.query = _query(getattr(Table.query, "_engram_original", Table.query))  # type: ignore[method-assign]
    original: Callable[..., Any] = getattr(DynamoResult.execute_result, "_engram_original", DynamoResult.execute_result)

    def execute_result(self: DynamoResult, context: Any) -> Any:
        if context.operation_model.name in _JSON_RESULTS:
            body = _dumps(self.result)
            if body is not None:
                return 200, {"Content-Type": _CONTENT_TYPE}, body
        return original(self, context)

    execute_result._engram_original = original  # type: ignore[attr-defined]
    DynamoResult.execute_result = execute_result  # type: ignore[method-assign,assignment]
