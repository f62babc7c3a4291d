"""`python -m bench.doubles.model_server [--minilm]`: the OpenAI-compatible stub in its own process.

Chat answers come from bench.doubles.stub_llm (instant, counted); with --minilm, /v1/embeddings serves
Engram's own all-MiniLM-L6-v2 vectors (OnnxEmbedder), so mem0 embeds with exactly the model Engram
uses. Running in its own process keeps its CPU out of the measured process. Prints one JSON line
{"base_url": ...} when ready and serves until stdin closes or SIGTERM.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from types import FrameType

from bench.doubles.stub_llm import respond
from tests.support.openai_stub import EmbedFunction, OpenAIStub


def minilm() -> EmbedFunction:
    from engram.adapters.onnx.embedder import DIMENSIONS, OnnxEmbedder

    embedder = OnnxEmbedder()
    embedder.warm_up()

    def embed(texts: list[str], dimensions: int) -> list[list[float]]:
        if dimensions != DIMENSIONS:
            raise ValueError(f"MiniLM vectors have {DIMENSIONS} dimensions, not {dimensions}")
        return embedder.embed(texts)

    return embed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--minilm", action="store_true", help="serve MiniLM embeddings (else hash vectors)")
    args = parser.parse_args(argv)
    embed = minilm() if args.minilm else None
    stub = OpenAIStub(respond, embedding_dimensions=384, embedder=embed, record_requests=False).start()
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    print(json.dumps({"base_url": stub.base_url}), flush=True)
    threading.Thread(target=lambda: (sys.stdin.read(), stop.set()), daemon=True).start()
    stop.wait()
    stub.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
