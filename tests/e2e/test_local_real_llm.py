"""`make run` with ENGRAM_OPENAI_BASE_URL at a real OpenAI-compatible server: llama.cpp (the xllamacpp
wheel) with SmolLM2-135M, as a user would point Engram at Ollama, vLLM or LM Studio. The model's
answers are poor; what is asserted is what Engram guarantees whatever it says: the add completes,
the stored memories are well formed, what the user said stays retrievable, and the chat proxy relays
a real model's answer, streamed chunk by chunk too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from engram_client import Engram
from engram_client.openai import TASK_HEADER, chat_client
from engram_tools.local.llm_server import LlamaServer
from tests.e2e.stack_process import Api, StackProcess
from tests.support.llama import ALIAS, smollm2_path

pytestmark = pytest.mark.e2e
KEY = "key-real-llm-1"
SLOW_S = 600  # a real model on two busy cores: generous, and never asserted


@pytest.fixture(scope="module")
def real_stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[StackProcess]:
    folder: Path = tmp_path_factory.mktemp("engram-real-llm")
    llama = LlamaServer(smollm2_path(), ALIAS, context=8192, threads=1, max_tokens=512, log_path=folder / "llama.log")
    llama.start()
    env = {
        "ENGRAM_OPENAI_BASE_URL": llama.base_url,  # the documented way to any OpenAI-compatible server
        "ENGRAM_LLM_MODEL": ALIAS,
        "ENGRAM_LLM_TIMEOUT_S": str(SLOW_S),
        "ENGRAM_GRAPH": "off",  # the graph's call has its own test (tests/integration/test_real_llm.py)
    }
    process = StackProcess(folder / "data", f"acme:{KEY}", env).start()
    try:
        yield process
    finally:
        # The model first: a call still in flight (the streamed exchange's task) then fails at once and
        # goes back to the queue, so the stack stops without waiting out the call's timeout.
        llama.stop()
        process.stop()


def test_an_add_through_a_real_model_is_stored_and_stays_retrievable(real_stack: StackProcess) -> None:
    api = Api(real_stack, KEY)
    said = "I live in Lisbon and I work as a nurse at Santa Maria hospital."
    task = api.wait(api.add("ana", said), timeout_s=SLOW_S)

    assert task["status"] == "completed", task
    memories = api.memories("ana")
    assert memories and all(m["memory"].strip() and m["id"] for m in memories)
    # whatever facts the model wrote, the message itself is kept (an episode) and found again
    assert any("Lisbon" in m["memory"] for m in memories), [m["memory"] for m in memories]
    assert api.search("ana", "Where does Ana live?")


def test_the_chat_proxy_relays_a_real_models_answer_and_its_stream(real_stack: StackProcess) -> None:
    with Engram(real_stack.url, KEY) as engram:
        llm = chat_client(engram, "bo")
        question = [{"role": "user", "content": "Hi, I am Bo and I have a cat named Tom. Say hello."}]
        raw = llm.chat.completions.with_raw_response.create(model=ALIAS, messages=question, max_tokens=24)  # type: ignore[arg-type]
        answer: Any = raw.parse()
        chunks = list(
            llm.chat.completions.create(model=ALIAS, messages=question, stream=True, max_tokens=24)  # type: ignore[arg-type]
        )
        task = engram.wait_for_task(raw.headers[TASK_HEADER], timeout=SLOW_S)

    assert answer.choices[0].message.content.strip()
    assert answer.choices[0].finish_reason in ("stop", "length")
    pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert len(pieces) > 1  # relayed chunk by chunk
    assert chunks[-1].choices and chunks[-1].choices[0].finish_reason in ("stop", "length")
    assert task.status == "completed"
    assert any("Tom" in m["memory"] for m in Api(real_stack, KEY).memories("bo"))
