"""An assistant with long-term memory that never asks for it: an OpenAI client pointed at Engram.

    ENGRAM_OPENAI_API_KEY=sk-... make run                      # terminal 1: prints the local API key
    ENGRAM_API_KEY=<key> .venv/bin/python examples/assistant_loop.py --wait "I live in Berlin" "Where do I live?"

Each message goes to Engram's POST /v1/chat/completions (engram_client.openai.chat_client), which adds
what Engram remembers of the user to the system prompt, asks the LLM the server is configured with
(ENGRAM_OPENAI_API_KEY, or ENGRAM_OPENAI_BASE_URL for any OpenAI-compatible server), and queues the
exchange for extraction. `--wait` waits for that before the next message, so the next one already
knows it (in a real chat, the user's typing time does the waiting). `--stream` streams the answers.
With no messages on the command line, it reads one per line from standard input.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

from openai import OpenAI

from engram_client import Engram
from engram_client.openai import TASK_HEADER, chat_client

SYSTEM = "You are a helpful assistant."


def run_turn(llm: OpenAI, model: str, history: list[Any], text: str, stream: bool) -> tuple[str, str | None]:
    """One user message: the answer, and the task that remembers the exchange (None when streamed)."""
    history.append({"role": "user", "content": text})
    if stream:
        chunks = llm.chat.completions.create(model=model, messages=history, stream=True)
        answer = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        task_id = None
    else:
        raw = llm.chat.completions.with_raw_response.create(model=model, messages=history)
        answer, task_id = raw.parse().choices[0].message.content or "", raw.headers.get(TASK_HEADER)
    history.append({"role": "assistant", "content": answer})
    return answer, task_id


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("messages", nargs="*", help="user messages (default: lines of standard input)")
    parser.add_argument("--user-id", default="alice")
    parser.add_argument("--model", default="gpt-4o-mini")
    parser.add_argument("--stream", action="store_true", help="stream the answers (the local stack only)")
    parser.add_argument("--wait", action="store_true", help="wait until each exchange is remembered")
    args = parser.parse_args(argv)
    messages = args.messages or [line.strip() for line in sys.stdin if line.strip()]
    with Engram() as engram:
        llm = chat_client(engram, args.user_id)
        history: list[Any] = [{"role": "system", "content": SYSTEM}]
        for text in messages:
            # A fresh conversation per message when waiting: what the next answer knows comes from memory.
            conversation = history[:1] if args.wait else history
            answer, task_id = run_turn(llm, args.model, conversation, text, args.stream and not args.wait)
            print(f"user: {text}")
            print(f"assistant: {answer}")
            if args.wait and task_id:
                engram.wait_for_task(task_id)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
