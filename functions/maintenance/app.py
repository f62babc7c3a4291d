"""Placeholder so `sam build` has a handler; the maintenance function is being written separately."""

from typing import Any


def lambda_handler(event: dict[str, Any], context: object) -> dict[str, Any]:
    raise NotImplementedError
