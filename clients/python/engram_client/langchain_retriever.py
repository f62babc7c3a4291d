"""`EngramRetriever`: a LangChain retriever over a user's Engram memories (pip install "engram-client[langchain]").

    retriever = EngramRetriever(client=Engram(url, key), user_id="alice", top_k=5)
    retriever.invoke("where does she live?")  # -> [Document(page_content="Lives in Berlin", metadata={...})]

Each Document's page_content is the memory's text; its metadata: id, score, valid_from, valid_to,
created_at, updated_at (ISO 8601), memory_bank, user_id, agent_id, run_id and the memory's own `metadata`.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

try:
    from langchain_core.callbacks import AsyncCallbackManagerForRetrieverRun, CallbackManagerForRetrieverRun
    from langchain_core.documents import Document
    from langchain_core.retrievers import BaseRetriever
except ImportError as missing:  # the extra is not installed: say which
    raise ImportError(
        f"EngramRetriever needs the 'langchain' extra ({missing}): pip install \"engram-client[langchain]\""
    ) from missing
from pydantic import ConfigDict, Field

from engram_client import _calls
from engram_client._calls import Call
from engram_client.async_client import AsyncEngram
from engram_client.client import Engram
from engram_client.models import Memory, SearchResults


def _iso(when: datetime | None) -> str | None:
    return when.isoformat() if when is not None else None


def document_of(memory: Memory) -> Document:
    metadata = {
        "id": memory.id,
        "score": memory.score,
        "valid_from": _iso(memory.valid_from),
        "valid_to": _iso(memory.valid_to),
        "created_at": _iso(memory.created_at),
        "updated_at": _iso(memory.updated_at),
        "memory_bank": memory.memory_bank,
        "user_id": memory.user_id,
        "agent_id": memory.agent_id,
        "run_id": memory.run_id,
        "metadata": dict(memory.metadata),
    }
    return Document(page_content=memory.memory, metadata=metadata, id=memory.id)


class EngramRetriever(BaseRetriever):
    """The user's memories most relevant to the query, best first.

    `client` defaults to `Engram()` (ENGRAM_URL / ENGRAM_API_KEY or the config file); `async_client`, when
    given, serves `ainvoke` without a thread. `filters`: {"memory_bank": ..., "metadata": {...}}."""

    model_config = ConfigDict(arbitrary_types_allowed=True)

    user_id: str
    client: Engram = Field(default_factory=Engram)
    async_client: AsyncEngram | None = None
    agent_id: str | None = None
    run_id: str | None = None
    top_k: int = 5
    threshold: float | None = None
    filters: Mapping[str, Any] | None = None

    def _call(self, query: str) -> Call[SearchResults]:
        return _calls.search(
            query,
            self.user_id,
            top_k=self.top_k,
            agent_id=self.agent_id,
            run_id=self.run_id,
            threshold=self.threshold,
            filters=self.filters,
            graph=False,
        )

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [document_of(m) for m in self.client._run(self._call(query)).results]

    async def _aget_relevant_documents(
        self, query: str, *, run_manager: AsyncCallbackManagerForRetrieverRun
    ) -> list[Document]:
        if self.async_client is None:  # LangChain's default: the sync search on a worker thread
            return await super()._aget_relevant_documents(query, run_manager=run_manager)
        return [document_of(m) for m in (await self.async_client._run(self._call(query))).results]
