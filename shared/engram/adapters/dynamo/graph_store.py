"""GraphStore on the memory table: an adjacency list (key design in docs/graph.md).

Items (the relation body is a JSON string in `body`; `valid_to` is mirrored as an attribute so
queries can filter on it):
- entity:     pk=T#{tenant}#GE#{entity_id}  sk=ENTITY         gsi1pk=T#{tenant}#G#{user} gsi1sk=E#{entity_id}
- relation:   pk=T#{tenant}#GR#{relation_id} sk=REL           gsi1pk=T#{tenant}#G#{user} gsi1sk=R#{relation_id}
- adjacency:  pk=T#{tenant}#GE#{entity_id}  sk=R#{relation_id}#OUT|IN   (one per end of a relation)
"All relations of entity X, both directions" is one Query on X's partition; "all entities (or
relations) of a user" is one Query on the by_user index. Never a Scan.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from engram.adapters.aws.clients import aws_errors
from engram.adapters.dynamo.batch import batch_delete, batch_get, batch_put
from engram.adapters.dynamo.cursor import decode_cursor, encode_cursor
from engram.adapters.dynamo.fact_store import USER_INDEX
from engram.adapters.dynamo.values import iso
from engram.domain.errors import NotFoundError, ValidationError
from engram.domain.graph import Entity, EntityPage, Relation, RelationPage

if TYPE_CHECKING:
    from mypy_boto3_dynamodb.client import DynamoDBClient

Item = dict[str, Any]

ENTITY_SK = "ENTITY"
RELATION_SK = "REL"
_CURSOR_KEYS = ("pk", "sk", "gsi1pk", "gsi1sk")


def _tenant(tenant_id: str) -> str:
    # '#' separates key segments; allowing it would let one tenant's key spell another's.
    if not tenant_id or "#" in tenant_id:
        raise ValidationError("tenant_id", "must be non-empty and must not contain '#'")
    return f"T#{tenant_id}"


def entity_pk(tenant_id: str, entity_id: str) -> str:
    return f"{_tenant(tenant_id)}#GE#{entity_id}"


def relation_pk(tenant_id: str, relation_id: str) -> str:
    return f"{_tenant(tenant_id)}#GR#{relation_id}"


def graph_user_pk(tenant_id: str, user_id: str) -> str:
    return f"{_tenant(tenant_id)}#G#{user_id}"


def _s(value: str) -> Item:
    return {"S": value}


def _entity_item(entity: Entity) -> Item:
    return {
        "pk": _s(entity_pk(entity.tenant_id, entity.id)),
        "sk": _s(ENTITY_SK),
        "gsi1pk": _s(graph_user_pk(entity.tenant_id, entity.user_id)),
        "gsi1sk": _s(f"E#{entity.id}"),
        "item_type": _s("graph_entity"),
        "body": _s(entity.model_dump_json()),
    }


def _relation_items(relation: Relation) -> list[Item]:
    body = relation.model_dump_json()
    extra: Item = {"valid_to": _s(iso(relation.valid_to))} if relation.valid_to else {}
    main = {
        "pk": _s(relation_pk(relation.tenant_id, relation.id)),
        "sk": _s(RELATION_SK),
        "gsi1pk": _s(graph_user_pk(relation.tenant_id, relation.user_id)),
        "gsi1sk": _s(f"R#{relation.id}"),
        "item_type": _s("graph_relation"),
        "body": _s(body),
        **extra,
    }
    ends = [(relation.source_entity_id, "OUT"), (relation.destination_entity_id, "IN")]
    edges = [
        {
            "pk": _s(entity_pk(relation.tenant_id, entity_id)),
            "sk": _s(f"R#{relation.id}#{direction}"),
            "item_type": _s("graph_edge"),
            "body": _s(body),
            **extra,
        }
        for entity_id, direction in ends
    ]
    return [main, *edges]


class DynamoGraphStore:
    """Implements the GraphStore port."""

    def __init__(self, db: DynamoDBClient, table: str) -> None:
        self._db = db
        self._table = table

    # --- writes ---------------------------------------------------------------------------------
    def put_entities(self, entities: Sequence[Entity]) -> None:
        batch_put(self._db, self._table, [_entity_item(e) for e in entities])

    def put_relations(self, relations: Sequence[Relation]) -> None:
        """Writes new relations, or closed versions of existing ones (all three items each)."""
        batch_put(self._db, self._table, [item for r in relations for item in _relation_items(r)])

    def forget_user(self, tenant_id: str, user_id: str) -> int:
        """Delete every relation (with its edges), then every entity of one user; idempotent.
        Returns the relations and entities removed."""
        removed = 0
        for prefix in ("R#", "E#"):
            while items := self._query_user(tenant_id, user_id, prefix, None, 100)[0]:
                keys: list[Item] = []
                for item in items:
                    if prefix == "R#":
                        relation = Relation.model_validate_json(item["body"]["S"])
                        keys += [{"pk": k["pk"], "sk": k["sk"]} for k in _relation_items(relation)]
                    else:
                        keys.append({"pk": item["pk"], "sk": item["sk"]})
                batch_delete(self._db, self._table, keys)
                removed += len(items)
        return removed

    # --- reads ----------------------------------------------------------------------------------
    def get_entity(self, tenant_id: str, entity_id: str) -> Entity:
        with aws_errors(self._table):
            resp = self._db.get_item(
                TableName=self._table, Key={"pk": _s(entity_pk(tenant_id, entity_id)), "sk": _s(ENTITY_SK)}
            )
        if "Item" not in resp:
            raise NotFoundError("entity", entity_id)
        return Entity.model_validate_json(resp["Item"]["body"]["S"])

    def get_entities(self, tenant_id: str, entity_ids: Sequence[str]) -> list[Entity]:
        keys = [{"pk": _s(entity_pk(tenant_id, e)), "sk": _s(ENTITY_SK)} for e in dict.fromkeys(entity_ids)]
        return [Entity.model_validate_json(i["body"]["S"]) for i in batch_get(self._db, self._table, keys)]

    def get_relation(self, tenant_id: str, relation_id: str) -> Relation:
        with aws_errors(self._table):
            resp = self._db.get_item(
                TableName=self._table, Key={"pk": _s(relation_pk(tenant_id, relation_id)), "sk": _s(RELATION_SK)}
            )
        if "Item" not in resp:
            raise NotFoundError("relation", relation_id)
        return Relation.model_validate_json(resp["Item"]["body"]["S"])

    def relations_of(self, tenant_id: str, entity_ids: Sequence[str], include_closed: bool = False) -> list[Relation]:
        """Relations touching any of the entities, in both directions, each once."""
        found: dict[str, Relation] = {}
        for entity_id in dict.fromkeys(entity_ids):
            params: dict[str, Any] = {
                "TableName": self._table,
                "KeyConditionExpression": "pk = :pk AND begins_with(sk, :r)",
                "ExpressionAttributeValues": {":pk": _s(entity_pk(tenant_id, entity_id)), ":r": _s("R#")},
            }
            if not include_closed:
                params["FilterExpression"] = "attribute_not_exists(valid_to)"
            while True:
                with aws_errors(self._table):
                    resp = self._db.query(**params)
                for item in resp.get("Items", []):
                    relation = Relation.model_validate_json(item["body"]["S"])
                    found[relation.id] = relation
                if "LastEvaluatedKey" not in resp:
                    break
                params["ExclusiveStartKey"] = resp["LastEvaluatedKey"]
        return list(found.values())

    def entities(self, tenant_id: str, user_id: str, limit: int = 100, cursor: str | None = None) -> EntityPage:
        items, next_cursor = self._query_user(tenant_id, user_id, "E#", cursor, limit)
        return EntityPage(entities=[Entity.model_validate_json(i["body"]["S"]) for i in items], next_cursor=next_cursor)

    def relations(
        self,
        tenant_id: str,
        user_id: str,
        limit: int = 100,
        cursor: str | None = None,
        include_closed: bool = False,
        as_of: datetime | None = None,
    ) -> RelationPage:
        items, next_cursor = self._query_user(tenant_id, user_id, "R#", cursor, limit)
        relations = [Relation.model_validate_json(i["body"]["S"]) for i in items]
        if as_of is not None:
            relations = [r for r in relations if r.current_at(as_of)]
        elif not include_closed:
            relations = [r for r in relations if r.current]
        return RelationPage(relations=relations, next_cursor=next_cursor)

    def _query_user(
        self, tenant_id: str, user_id: str, prefix: str, cursor: str | None, limit: int
    ) -> tuple[list[Item], str | None]:
        partition = graph_user_pk(tenant_id, user_id)
        params: dict[str, Any] = {
            "TableName": self._table,
            "IndexName": USER_INDEX,
            "KeyConditionExpression": "gsi1pk = :p AND begins_with(gsi1sk, :s)",
            "ExpressionAttributeValues": {":p": _s(partition), ":s": _s(prefix)},
            "Limit": limit,
        }
        if cursor:
            params["ExclusiveStartKey"] = decode_cursor(cursor, _CURSOR_KEYS, "gsi1pk", partition)
        with aws_errors(self._table):
            resp = self._db.query(**params)
        items = list(resp.get("Items", []))
        last = resp.get("LastEvaluatedKey")
        return items, encode_cursor(dict(last), _CURSOR_KEYS) if last else None
