"""Ask the LLM for JSON, repair what can be repaired and retry what cannot; never drop silently."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any, TypeVar

from aws_lambda_powertools import Logger

from engram.domain.errors import LLMOutputError
from engram.domain.models import Usage
from engram.domain.ports import LLM

logger = Logger(child=True)

T = TypeVar("T")

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_json_loosely(text: str) -> Any:
    """JSON as models tend to send it: bare, fenced, or wrapped in prose."""
    text = text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    fenced = _FENCE.search(text)
    if fenced:
        try:
            return json.loads(fenced.group(1))
        except json.JSONDecodeError:
            pass
    for open_ch, close_ch in (("{", "}"), ("[", "]")):
        start, end = text.find(open_ch), text.rfind(close_ch)
        if 0 <= start < end:
            try:
                return json.loads(text[start : end + 1])
            except json.JSONDecodeError:
                continue
    raise ValueError("no JSON object found in the model's answer")


def ask_json(
    llm: LLM,
    system: str,
    user: str,
    schema: dict[str, Any],
    schema_name: str,
    interpret: Callable[[Any], T],
    attempts: int = 3,
) -> tuple[T, Usage]:
    """Call the LLM until `interpret` accepts its answer; feed the error back on each retry.

    `interpret` raises ValueError (or KeyError/TypeError) for an answer it cannot use.
    """
    usage = Usage()
    prompt = user
    last_error = ""
    for attempt in range(1, attempts + 1):
        reply = llm.complete_json(system, prompt, schema, schema_name)
        usage.add(reply.usage)
        try:
            return interpret(parse_json_loosely(reply.content)), usage
        except (ValueError, KeyError, TypeError) as err:
            last_error = str(err)
            logger.warning("unusable LLM answer", extra={"attempt": attempt, "error": last_error})
            prompt = (
                f"{user}\n\nYour previous answer could not be used ({last_error}). "
                "Answer again with valid JSON that follows the required format exactly."
            )
    raise LLMOutputError(f"{schema_name}: no usable answer after {attempts} attempts: {last_error}", usage)
