"""An assistant with long-term memory: a chat model calls Engram's memory tools in a loop.

    make run                                                    # terminal 1: prints the local API key
    ENGRAM_API_KEY=<key> .venv/bin/python examples/assistant_loop.py --stub "I live in Berlin" "Where do I live?"

`--stub` serves the repository's OpenAI-compatible stub (tests/support/openai_stub.py) with a rule-based
stand-in for a model: a question fetches memory, a statement saves it. Without `--stub`, OPENAI_API_KEY
(and OPENAI_BASE_URL for any compatible server) and `--model` choose a real model. With no messages on
the command line, it reads one per line from standard input.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from openai import OpenAI

from engram_client import Engram
from engram_client.tools import MemoryTools, openai_tools

MAX_TOOL_ROUNDS = 5
SYSTEM = "You are a helpful assistant with long-term memory. Fetch memory before answering personal questions."


def run_turn(llm: OpenAI, model: str, tools: MemoryTools, user_id: str, history: list[Any], text: str) -> str:
    """One user message: call the model, run the tools it asks for, until it answers in words."""
    history.append({"role": "user", "content": text})
    for _ in range(MAX_TOOL_ROUNDS):
        response = llm.chat.completions.create(model=model, messages=history, tools=openai_tools())
        message = response.choices[0].message
        history.append(message.model_dump(exclude_none=True))
        if not message.tool_calls:
            return message.content or ""
        for call in message.tool_calls:
            result = tools.handle(call.function.name, call.function.arguments, user_id)
            history.append({"role": "tool", "tool_call_id": call.id, "content": result})
    return "(stopped: too many tool calls in one turn)"


def toy_model(request: dict[str, Any]) -> str | dict[str, Any]:
    """A rule-based stand-in for a model, for the stub: questions fetch, statements save."""
    last = request["messages"][-1]
    if last["role"] == "tool":
        result = json.loads(last["content"])
        if "memories" in result:
            found = [m["memory"] for m in result["memories"]]
            return "From what you told me: " + "; ".join(found) if found else "I don't know that yet."
        return "Noted, I'll remember that." if result.get("saved") else "I knew that already."
    text = str(last["content"])
    name, arguments = (
        ("fetch_memory", {"query": text}) if text.rstrip().endswith("?") else ("save_memory", {"content": text})
    )
    call = {
        "id": f"call_{len(request['messages'])}",
        "type": "function",
        "function": {"name": name, "arguments": json.dumps(arguments)},
    }
    return {"content": None, "tool_calls": [call]}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("messages", nargs="*", help="user messages (default: lines of standard input)")
    parser.add_argument("--user-id", default="alice")
    parser.add_argument("--model", default="gpt-4o-mini")
    parser.add_argument("--stub", action="store_true", help="use the repository's OpenAI-compatible stub")
    args = parser.parse_args(argv)
    messages = args.messages or [line.strip() for line in sys.stdin if line.strip()]
    stub = None
    if args.stub:
        sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
        from tests.support.openai_stub import OpenAIStub

        stub = OpenAIStub(responder=toy_model).start()
    try:
        llm = OpenAI(base_url=stub.base_url, api_key="stub") if stub else OpenAI()
        history: list[Any] = [{"role": "system", "content": SYSTEM}]
        with Engram() as engram:
            tools = MemoryTools(engram)
            for text in messages:
                print(f"user: {text}")
                print(f"assistant: {run_turn(llm, args.model, tools, args.user_id, history, text)}")
    finally:
        if stub:
            stub.stop()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
