"""Embeddings from OpenAI (or any OpenAI-compatible server) through the official client."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from engram.adapters.openai.errors import call_openai
from engram.domain.errors import EngramError

if TYPE_CHECKING:
    from openai import OpenAI

    from engram.settings import Settings

# Used only when neither the caller nor the server has said how long the vectors are.
_NATIVE_DIMENSIONS = {
    "text-embedding-3-small": 1536,
    "text-embedding-3-large": 3072,
    "text-embedding-ada-002": 1536,
}

# OpenAI-compatible servers (vLLM, Ollama, llama.cpp ...) accept any key but the client needs one.
_PLACEHOLDER_KEY = "engram-no-key"


def build_openai_client(settings: Settings) -> OpenAI:
    """The client for the LLM and the embedder, from settings.

    openai is imported here, not at module level: it costs a few hundred ms at a cold start and
    only functions that call OpenAI need it.
    """
    import openai

    if settings.openai_api_key is not None:
        api_key = settings.openai_api_key.get_secret_value()
    elif settings.openai_base_url is not None:
        api_key = _PLACEHOLDER_KEY
    else:
        raise EngramError("OpenAI is not configured: set ENGRAM_OPENAI_API_KEY or ENGRAM_OPENAI_BASE_URL")
    return openai.OpenAI(
        api_key=api_key,
        base_url=settings.openai_base_url,
        timeout=settings.llm_timeout_s,
        max_retries=settings.llm_max_retries,
    )


class OpenAIEmbedder:
    """Embedder port: one embeddings request for all texts, vectors re-normalised to unit length."""

    def __init__(self, client: OpenAI, model: str, dimensions: int | None) -> None:
        self._client = client
        self._model = model
        # text-embedding-3-* shorten vectors on request; other models must not be sent the field.
        self._requested_dimensions = dimensions
        self.dimensions: int = dimensions if dimensions is not None else _NATIVE_DIMENSIONS.get(model, 0)
        self.model_id: str = model if dimensions is None else f"{model}@{dimensions}"

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not texts:
            return []
        kwargs: dict[str, Any] = {"model": self._model, "input": list(texts)}
        if self._requested_dimensions is not None:
            kwargs["dimensions"] = self._requested_dimensions
        response = call_openai(lambda: self._client.embeddings.create(**kwargs), "embeddings")

        # The API documents index order, but sorting costs nothing and protects proxies that reorder.
        rows = sorted(response.data, key=lambda item: item.index)
        if len(rows) != len(texts):
            raise EngramError(f"embeddings: asked for {len(texts)} vectors, got {len(rows)}")
        vectors = [_normalised(list(row.embedding)) for row in rows]
        if not self.dimensions:
            self.dimensions = len(vectors[0])  # unknown model: learn its length from the first answer
        for vector in vectors:
            if len(vector) != self.dimensions:
                raise EngramError(
                    f"embeddings: model {self._model} returned {len(vector)} dimensions, expected {self.dimensions}"
                )
        return vectors


def _normalised(vector: list[float]) -> list[float]:
    # OpenAI's vectors are unit length already, but shortened ones and other servers' may not be.
    norm = math.sqrt(sum(x * x for x in vector))
    if norm == 0.0 or not math.isfinite(norm):
        raise EngramError("embeddings: the server returned a zero or non-finite vector")
    return [x / norm for x in vector]
