"""Checks a JSON answer against a botocore output shape: required members, no member the model does
not have, types, unions (one member), enums, and string and list limits and patterns. Run on the raw
body of every AgentCore answer, so a botocore upgrade that changes a shape fails the contract test."""

from __future__ import annotations

import re
from typing import Any

from botocore.model import Shape


def shape_errors(shape: Shape, value: Any, path: str = "$") -> list[str]:
    kind = shape.type_name
    errors: list[str] = []
    if kind == "structure":
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, not an object"]
        members = shape.members  # type: ignore[attr-defined]
        unknown = set(value) - set(members)
        errors += [f"{path}.{k}: not in {shape.name}" for k in sorted(unknown)]
        located = {k for k, m in members.items() if m.serialization.get("location")}
        missing = [k for k in shape.required_members if k not in value and k not in located]  # type: ignore[attr-defined]
        errors += [f"{path}.{k}: required by {shape.name}, missing" for k in missing]
        if shape.metadata.get("union") and len(value) != 1:
            errors.append(f"{path}: a union holds one member, not {sorted(value)}")
        if shape.metadata.get("document"):
            return errors
        for key, item in value.items():
            if key in members:
                errors += shape_errors(members[key], item, f"{path}.{key}")
        return errors
    if kind == "list":
        if not isinstance(value, list):
            return [f"{path}: {type(value).__name__}, not a list"]
        errors += _bounds(shape, len(value), path)
        for i, item in enumerate(value):
            errors += shape_errors(shape.member, item, f"{path}[{i}]")  # type: ignore[attr-defined]
        return errors
    if kind == "map":
        if not isinstance(value, dict):
            return [f"{path}: {type(value).__name__}, not a map"]
        errors += _bounds(shape, len(value), path)
        for key, item in value.items():
            errors += shape_errors(shape.key, key, f"{path}<key {key!r}>")  # type: ignore[attr-defined]
            errors += shape_errors(shape.value, item, f"{path}[{key!r}]")  # type: ignore[attr-defined]
        return errors
    if kind == "string":
        if not isinstance(value, str):
            return [f"{path}: {type(value).__name__}, not a string"]
        errors += _bounds(shape, len(value), path)
        if shape.enum and value not in shape.enum:  # type: ignore[attr-defined]
            errors.append(f"{path}: {value!r} is not one of {shape.enum}")  # type: ignore[attr-defined]
        pattern = shape.metadata.get("pattern")
        if pattern and not re.fullmatch(pattern, value):
            errors.append(f"{path}: {value!r} does not match {pattern}")
        return errors
    if kind in ("integer", "long"):
        ok = isinstance(value, int) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {value!r} is not an integer"]
    if kind in ("double", "float"):
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {value!r} is not a number"]
    if kind == "boolean":
        return [] if isinstance(value, bool) else [f"{path}: {value!r} is not a boolean"]
    if kind == "timestamp":  # rest-json: epoch seconds
        ok = isinstance(value, int | float) and not isinstance(value, bool)
        return [] if ok else [f"{path}: {value!r} is not epoch seconds"]
    return [f"{path}: shape type {kind} is not checked here"]


def _bounds(shape: Shape, size: int, path: str) -> list[str]:
    low, high = shape.metadata.get("min"), shape.metadata.get("max")
    if low is not None and size < low:
        return [f"{path}: {size} is under the minimum {low}"]
    if high is not None and size > high:
        return [f"{path}: {size} is over the maximum {high}"]
    return []
