"""The chat proxy through `make run` with the OpenAI stub as the stack's LLM: an `openai` client pointed
at Engram streams the answer chunk by chunk, the user's memories reach the model, and the exchange
becomes a memory the next conversation gets; the example assistant loop does the same."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest

from engram.services.chat_proxy import said_on
from engram_client import Engram
from engram_client.openai import TASK_HEADER, chat_client
from tests.e2e.stack_process import ROOT, Api, StackProcess
from tests.support.openai_stub import OpenAIStub, looks_like_extraction

pytestmark = pytest.mark.e2e
KEY = "key-chat-1"
TRIP = "I am planning a trip to Lisbon in June. Any tips?"
KNOWS = "You live in Berlin, so take the direct flight to Lisbon and pack light."


def model(request: dict[str, Any]) -> str:
    """The stack's LLM: facts for extraction calls, and for chat an answer that shows what it was told."""
    prompt = " ".join(str(m.get("content")) for m in request["messages"])
    if looks_like_extraction(request):
        facts = [
            f
            for s, f in (("Lisbon", "Is planning a trip to Lisbon in June"), ("Berlin", "Lives in Berlin"))
            if s in prompt
        ]
        return json.dumps({"facts": [{"text": f, "memory_bank": "General", "importance": 0.5} for f in facts]})
    if request.get("response_format"):
        return '{"memory": []}'
    system = request["messages"][0]["content"] if request["messages"][0]["role"] == "system" else ""
    if "Lives in Berlin" in system:
        return KNOWS
    return "Where do you live? I can suggest a route."


@pytest.fixture(scope="module")
def stub() -> Iterator[OpenAIStub]:
    with OpenAIStub(responder=model) as s:
        yield s


@pytest.fixture(scope="module")
def chat_stack(tmp_path_factory: pytest.TempPathFactory, stub: OpenAIStub) -> Iterator[StackProcess]:
    data_dir: Path = tmp_path_factory.mktemp("engram-chat") / "data"
    env = {
        "ENGRAM_OPENAI_BASE_URL": stub.base_url,
        "ENGRAM_LLM_MODEL": "stub-model",
        "ENGRAM_LLM_SINGLE_CALL": "false",  # the stub answers the separate extraction call's schema
        "ENGRAM_GRAPH": "off",
        "ENGRAM_KEEP_EPISODES": "false",  # only the extracted facts: the assertions name them
    }
    process = StackProcess(data_dir, f"acme:{KEY}", env).start()
    yield process
    process.stop()


def wait_for_memory(api: Api, user: str, text: str, timeout_s: float = 60) -> list[Any]:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        memories = api.memories(user)
        if any(m["memory"] == text for m in memories):
            return memories
        time.sleep(0.2)
    raise AssertionError(f"{text!r} not remembered for {user} in {timeout_s} s: {api.memories(user)}")


def test_an_openai_client_streams_through_engram_with_memories(chat_stack: StackProcess, stub: OpenAIStub) -> None:
    api = Api(chat_stack, KEY)
    api.wait(api.add("sam", "Lives in Berlin", infer=False))
    with Engram(chat_stack.url, KEY) as engram:
        llm = chat_client(engram, "sam")
        messages = [{"role": "user", "content": TRIP}]
        chunks = list(llm.chat.completions.create(model="stub-model", messages=messages, stream=True))  # type: ignore[arg-type]

    pieces = [c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content]
    assert "".join(pieces) == KNOWS
    assert len(pieces) > 5  # relayed chunk by chunk, not gathered into one
    assert chunks[-1].choices[0].finish_reason == "stop"
    sent = [r for r in stub.chat_requests if not r.get("response_format")][-1]
    assert sent["stream"] is True and sent["messages"][-1] == messages[0]
    today = said_on(datetime.now(UTC))
    assert f'- "Lives in Berlin" (said by the user, {today})' in sent["messages"][0]["content"]
    # the exchange is queued once the stream ends, and the worker makes it a memory
    wait_for_memory(api, "sam", "Is planning a trip to Lisbon in June")


def test_the_next_conversation_knows_what_the_last_one_said(chat_stack: StackProcess) -> None:
    api = Api(chat_stack, KEY)
    with Engram(chat_stack.url, KEY) as engram:
        llm = chat_client(engram, "tess")
        first = llm.chat.completions.with_raw_response.create(
            model="stub-model", messages=[{"role": "user", "content": "Hi! I live in Berlin now."}]
        )
        assert first.parse().choices[0].message.content == "Where do you live? I can suggest a route."
        assert engram.wait_for_task(first.headers[TASK_HEADER]).status == "completed"

        second = llm.chat.completions.create(model="stub-model", messages=[{"role": "user", "content": TRIP}])

    assert (
        second.choices[0].message.content == "You live in Berlin, so take the direct flight to Lisbon and pack light."
    )
    assert "Lives in Berlin" in [m["memory"] for m in api.memories("tess")]


def test_streaming_without_a_user_is_422_naming_user(chat_stack: StackProcess, stub: OpenAIStub) -> None:
    calls = stub.chat_calls
    body = {"model": "stub-model", "stream": True, "messages": [{"role": "user", "content": "Hello"}]}
    resp = httpx.post(f"{chat_stack.url}/v1/chat/completions", json=body, headers={"x-api-key": KEY}, timeout=30)

    assert resp.status_code == 422
    assert [d["field"] for d in resp.json()["detail"]] == ["user"]
    assert stub.chat_calls == calls


def test_streaming_needs_the_api_key(chat_stack: StackProcess) -> None:
    body = {"user": "sam", "stream": True, "messages": [{"role": "user", "content": "Hello"}]}
    assert httpx.post(f"{chat_stack.url}/v1/chat/completions", json=body, timeout=30).status_code == 401
    wrong = {"x-api-key": "not-a-key"}
    assert httpx.post(f"{chat_stack.url}/v1/chat/completions", json=body, headers=wrong, timeout=30).status_code == 403


def test_the_example_assistant_loop_remembers_through_the_proxy(chat_stack: StackProcess) -> None:
    env = {**os.environ, "ENGRAM_URL": chat_stack.url, "ENGRAM_API_KEY": KEY}
    script = str(ROOT / "examples" / "assistant_loop.py")
    command = [sys.executable, script, "--wait", "--model", "stub-model", "--user-id", "uma", "I live in Berlin", TRIP]
    result = subprocess.run(command, capture_output=True, text=True, env=env, timeout=120, cwd=Path.cwd())

    assert result.returncode == 0, result.stderr
    replies = [line for line in result.stdout.splitlines() if line.startswith("assistant:")]
    assert replies == [
        "assistant: Where do you live? I can suggest a route.",
        f"assistant: {KNOWS}",
    ]


def test_the_documented_chat_curls_answer_as_shown(chat_stack: StackProcess) -> None:
    from tests.e2e.test_readme_curl import README_URL, commands, run_curl

    clients = (ROOT / "docs" / "clients.md").read_text(encoding="utf-8")  # the chat proxy's section
    (block,) = [b for b in re.findall(r"^```sh\n(.*?)^```", clients, re.DOTALL | re.MULTILINE) if "/chat/" in b]
    plain, streamed = commands(block.replace(README_URL, chat_stack.url).replace("$KEY", KEY))

    status, answer = run_curl(plain)
    assert status == 200 and answer["object"] == "chat.completion"
    status, events = run_curl(streamed)
    assert status == 200
    assert events.count("chat.completion.chunk") > 3 and events.rstrip().endswith("data: [DONE]")
