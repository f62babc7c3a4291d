"""The LLM's sub-queries (ENGRAM_SEARCH_REWRITE=llm): one call per search, counted in the tenant's usage;
a memory that shares no word with the question is found through them; a model that fails or answers
nonsense leaves the search on the offline split; the setting without an LLM fails at start."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import pytest
from pydantic import ValidationError as PydanticValidationError

from engram.adapters.embedded.index import EmbeddedIndex
from engram.domain.errors import TransientError
from engram.domain.models import SearchQuery
from engram.domain.operations import UsageDay
from engram.operations.accounting import Accounting
from engram.search.decompose import decomposing
from engram.search.hybrid import HybridSearcher
from engram.search.query_rewrite import LLMQueryRewriter, parse_queries
from engram.services.memory import MemoryService
from engram.settings import Settings
from tests.fakes import ScriptedLLM
from tests.unit.test_search_views import DIMS, remember, service

QUESTION = "What activities has Melanie done with her family?"


CAMPING = "Went camping at the lake"
MEMORIES = (CAMPING, "Melanie has a big family", "Family activities are fun", "Melanie likes her job")


def texts(memories: MemoryService) -> list[str]:
    return [f.text for f, _ in memories.search("acme", SearchQuery(user_id="alice", query=QUESTION, top_k=2))]


class Counters:
    def __init__(self) -> None:
        self.added: list[tuple[str, Mapping[str, int]]] = []

    def add(self, tenant_id: str, day: str, counts: Mapping[str, int]) -> None:
        self.added.append((tenant_id, counts))

    def days(self, tenant_id: str, days: Sequence[str]) -> list[UsageDay]:
        return []


class DownLLM:
    def complete_json(self, system: str, user: str, schema: object, schema_name: str) -> object:
        raise TransientError("the model is down")


def test_an_answer_becomes_clean_sub_queries() -> None:
    answer = json.dumps({"queries": [" camping  trip ", "pottery", "Pottery", QUESTION, "", "a", "b", "c"]})
    assert parse_queries(answer, QUESTION) == ["camping trip", "pottery", "a", "b"]
    assert parse_queries("not json", QUESTION) is None
    assert parse_queries(json.dumps({"queries": "camping"}), QUESTION) is None
    assert parse_queries(json.dumps({"queries": []}), QUESTION) == []


def test_a_memory_sharing_no_word_with_the_question_is_found_through_the_model_and_the_call_is_counted() -> None:
    memories = service(EmbeddedIndex(None, DIMS))
    remember(memories, "acme", "alice", *MEMORIES)
    assert CAMPING not in texts(memories)  # the question alone does not reach it
    counters = Counters()
    llm = ScriptedLLM(json.dumps({"queries": ["camping", "pottery"]}))
    rewriter = LLMQueryRewriter(llm, Accounting(usage=counters).search_llm)
    memories.searcher = decomposing(HybridSearcher(memories.index, memories.embedder), 0.9, 1, rewriter)
    assert CAMPING in texts(memories)
    assert len(llm.calls) == 1 and llm.calls[0]["user"] == QUESTION
    assert counters.added == [("acme", {"llm_calls": 1, "prompt_tokens": 8, "completion_tokens": 5})]


def test_a_failing_or_confused_model_leaves_the_offline_split() -> None:
    question = "Would Melanie prefer a national park or a theme park?"
    offline = ["Melanie prefer national park", "Melanie prefer theme park"]
    assert LLMQueryRewriter(DownLLM())("acme", question) == offline  # type: ignore[arg-type]
    assert LLMQueryRewriter(ScriptedLLM("{oops"))("acme", question) == offline


def test_the_llm_rewrite_needs_an_llm() -> None:
    with pytest.raises(PydanticValidationError, match="ENGRAM_SEARCH_REWRITE=llm needs an LLM"):
        Settings(search_rewrite="llm")
    assert Settings(search_rewrite="llm", openai_api_key="sk-test").search_rewrite == "llm"


def test_the_container_wires_the_model_split_only_when_asked() -> None:
    from engram.bootstrap import Container
    from engram.search.decompose import DecomposingSearcher

    llm = ScriptedLLM()
    wired = Container(Settings(search_rewrite="llm", openai_api_key="sk-test"), llm=llm, accounting=Accounting())
    searcher = wired.ranked_searcher()
    assert isinstance(searcher, DecomposingSearcher) and isinstance(searcher.split, LLMQueryRewriter)
    assert searcher.split.llm is llm
    assert not isinstance(Container(Settings()).ranked_searcher(), DecomposingSearcher)
