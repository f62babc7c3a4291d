"""Sub-queries written by the LLM (ENGRAM_SEARCH_REWRITE=llm): one cheap call per search, when configured.

The offline split (search/decompose.py) sees only coordinations ("X or Y"); a model also sees that "What
activities has Melanie done with her family?" is several searches (camping, pottery, the museum). The call
is counted in the tenant's usage like an add's (`llm_calls`, tokens). A search never fails because of it: an
LLM error or an answer that does not parse falls back to the offline split.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from aws_lambda_powertools import Logger

from engram.domain.errors import EngramError
from engram.domain.models import Usage
from engram.domain.ports import LLM
from engram.reconcile.prompts import load_prompt
from engram.search.decompose import MAX_SUBQUERIES, sub_queries

logger = Logger(child=True)

MAX_QUESTION = 1_000  # characters of the question sent: a search query is short; a pasted essay is cut
MAX_QUERY = 200  # characters of one sub-query kept
SCHEMA = {
    "type": "object",
    "properties": {"queries": {"type": "array", "items": {"type": "string"}, "maxItems": MAX_SUBQUERIES}},
    "required": ["queries"],
    "additionalProperties": False,
}


def parse_queries(content: str, question: str) -> list[str] | None:
    """The sub-queries of an answer: strings, stripped, without repeats or the question itself, at most
    MAX_SUBQUERIES; None when the answer is not the JSON asked for."""
    try:
        data = json.loads(content)
    except json.JSONDecodeError:
        return None
    queries = data.get("queries") if isinstance(data, dict) else None
    if not isinstance(queries, list) or not all(isinstance(q, str) for q in queries):
        return None
    seen = {question.strip().lower()}
    out: list[str] = []
    for query in queries:
        text = " ".join(query.split())[:MAX_QUERY]
        if text and text.lower() not in seen:
            seen.add(text.lower())
            out.append(text)
    return out[:MAX_SUBQUERIES]


@dataclass
class LLMQueryRewriter:
    """A question's sub-queries from one LLM call; `record(tenant_id, usage)` counts the call."""

    llm: LLM
    record: Callable[[str, Usage], None] | None = None

    def __call__(self, tenant_id: str, question: str) -> list[str]:
        try:
            reply = self.llm.complete_json(
                load_prompt("query_rewrite"), question[:MAX_QUESTION], SCHEMA, "search_queries"
            )
        except EngramError:  # the adapter's translated errors: the search goes on without the model
            logger.warning("query rewrite failed; offline split used", extra={"tenant_id": tenant_id})
            return sub_queries(question)
        if self.record is not None:
            usage = reply.usage.model_copy(update={"llm_calls": max(reply.usage.llm_calls, 1)})
            self.record(tenant_id, usage)
        queries = parse_queries(reply.content, question)
        return sub_queries(question) if queries is None else queries
