"""Long-term memory for an app that speaks OpenAI's chat API: point an `openai` client at Engram.

    from engram_client import Engram
    from engram_client.openai import chat_client

    llm = chat_client(Engram(), user_id="alice")        # an openai.OpenAI for Engram's /v1
    llm.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "Hi!"}])

Engram's POST /v1/chat/completions adds the user's memories most relevant to their last message to
the system prompt, forwards the call to the LLM the server is configured with, answers as that LLM
did, and remembers the exchange. `stream=True` works against the local stack (`make run`); API
Gateway on AWS cannot stream a Lambda's answer and refuses it (400 naming `stream`).
Needs the `openai` package (`pip install 'engram-client[openai]'`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engram_client.client import Engram

if TYPE_CHECKING:
    from openai import OpenAI

USER_HEADER = "x-engram-user-id"
TASK_HEADER = "x-engram-task-id"  # on a non-streamed answer: the add task of the exchange


def chat_client(engram: Engram, user_id: str, **options: Any) -> OpenAI:
    """An `openai.OpenAI` whose chat completions go through Engram with this user's memories.

    The Engram client gives the URL and API key; `options` go to `openai.OpenAI` (timeout,
    max_retries, ...). The model each call names is the one the server's LLM is asked for."""
    from openai import OpenAI

    api_key = engram.api_key or "none"
    headers = {"x-api-key": api_key, USER_HEADER: user_id, **options.pop("default_headers", {})}
    return OpenAI(base_url=f"{engram.base_url}/v1", api_key=api_key, default_headers=headers, **options)
