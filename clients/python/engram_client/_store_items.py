"""How a LangGraph store item lives in Engram (engram_client.langgraph_store): pure mapping, no I/O.

A namespace is ("users", user_id, ["agents", agent_id,] ["runs", run_id,] *labels): the user (and agent
and run, when given) scope the memory in Engram; further labels only tell collections apart. An item is
one memory whose metadata holds its key, its namespace, every prefix of the namespace (so a search under
a prefix is filtered by the server) and its value as JSON (so it comes back exactly as put).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from langgraph.store.base import InvalidNamespaceError, MatchCondition, get_text_at_path

from engram_client.models import Memory

KEY, NAMESPACE, PREFIXES, VALUE = "lg_key", "lg_namespace", "lg_prefixes", "lg_value"
TEXT_CHARS = 2_000  # Engram keeps a longer message in parts (several memories); an item is one memory
SEP = "."  # LangGraph refuses labels with a period, so joined namespaces are unambiguous


@dataclass(frozen=True)
class Scope:
    namespace: tuple[str, ...]
    user_id: str
    agent_id: str | None = None
    run_id: str | None = None

    @property
    def joined(self) -> str:
        return SEP.join(self.namespace)


def scope_of(namespace: tuple[str, ...], *, prefix: bool = False) -> Scope:
    """The Engram scope of a namespace (of a search prefix, with `prefix`: it must name the user)."""
    if len(namespace) < 2 or namespace[0] != "users":
        kind = "a search prefix" if prefix else "a namespace"
        raise InvalidNamespaceError(
            f"{kind} must start with ('users', user_id), e.g. ('users', 'alice', 'memories'); got {namespace}"
        )
    rest = namespace[2:]
    agent_id = run_id = None
    if len(rest) >= 2 and rest[0] == "agents":
        agent_id, rest = rest[1], rest[2:]
    if len(rest) >= 2 and rest[0] == "runs":
        run_id = rest[1]
    return Scope(namespace, namespace[1], agent_id, run_id)


def metadata_of(scope: Scope, key: str, value: Mapping[str, Any]) -> dict[str, Any]:
    ns = scope.namespace
    prefixes = [SEP.join(ns[:depth]) for depth in range(1, len(ns) + 1)]
    encoded = json.dumps(dict(value), ensure_ascii=False, separators=(",", ":"))
    return {KEY: key, NAMESPACE: scope.joined, PREFIXES: prefixes, VALUE: encoded}


def text_of(key: str, value: Mapping[str, Any], fields: Sequence[str] | None) -> str:
    """What Engram embeds and ranks: the fields given (LangGraph paths, "$" the whole value), else the
    whole value as JSON; cut to one memory's length. The key when there is nothing else to say."""
    wanted = list(fields) if fields is not None else ["$"]
    parts: list[str] = []
    for path in wanted:
        if path == "$":
            parts.append(json.dumps(dict(value), ensure_ascii=False))
        else:
            parts += [str(t) for t in get_text_at_path(dict(value), path)]
    text = "\n".join(p for p in parts if p.strip()).replace("\x00", "")[:TEXT_CHARS].strip()
    return text or key


def is_item(memory: Memory) -> bool:
    found = memory.metadata
    return isinstance(found.get(KEY), str) and isinstance(found.get(NAMESPACE), str) and VALUE in found


def namespace_of(memory: Memory) -> tuple[str, ...]:
    return tuple(str(memory.metadata[NAMESPACE]).split(SEP))


def key_of(memory: Memory) -> str:
    return str(memory.metadata[KEY])


def value_of(memory: Memory) -> dict[str, Any]:
    decoded = json.loads(memory.metadata[VALUE])
    return decoded if isinstance(decoded, dict) else {"value": decoded}


def times_of(memory: Memory) -> tuple[datetime, datetime]:
    created = memory.created_at or memory.valid_from or datetime.now(UTC)
    return created, memory.updated_at or created


def newest_first(memories: Sequence[Memory]) -> list[Memory]:
    return sorted(memories, key=lambda m: times_of(m)[1], reverse=True)


def under(namespace: tuple[str, ...], prefix: tuple[str, ...]) -> bool:
    return namespace[: len(prefix)] == prefix


def matches_filter(value: Mapping[str, Any], wanted: Mapping[str, Any] | None) -> bool:
    """LangGraph's filter: exact values (nested dicts compared key by key) or $eq $ne $gt $gte $lt $lte."""
    return all(_compare(value.get(k), v) for k, v in (wanted or {}).items())


def _compare(found: Any, wanted: Any) -> bool:
    if isinstance(wanted, Mapping):
        if any(str(k).startswith("$") for k in wanted):
            return all(_operator(found, op, operand) for op, operand in wanted.items())
        return isinstance(found, Mapping) and all(_compare(found.get(k), v) for k, v in wanted.items())
    return bool(found == wanted)


def _operator(found: Any, op: str, operand: Any) -> bool:
    if op == "$eq":
        return bool(found == operand)
    if op == "$ne":
        return bool(found != operand)
    if op not in ("$gt", "$gte", "$lt", "$lte"):
        raise ValueError(f"unsupported filter operator {op!r}: one of $eq $ne $gt $gte $lt $lte")
    try:
        a, b = float(found), float(operand)
    except (TypeError, ValueError):
        return False  # a missing value, or one that is not a number, is neither greater nor smaller
    return {"$gt": a > b, "$gte": a >= b, "$lt": a < b, "$lte": a <= b}[op]


def matches_condition(namespace: tuple[str, ...], condition: MatchCondition) -> bool:
    """A prefix or suffix match, "*" matching any one label."""
    path = tuple(condition.path)
    if len(namespace) < len(path):
        return False
    ends = namespace[: len(path)] if condition.match_type == "prefix" else namespace[len(namespace) - len(path) :]
    return all(p in ("*", n) for n, p in zip(ends, path, strict=True))
