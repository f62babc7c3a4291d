"""The bench's real model: whether one is configured, and its client, for every part that uses one.

    ENGRAM_QA_MODEL=<name> ENGRAM_QA_BASE_URL=http://127.0.0.1:8765/v1 make bench

- ENGRAM_QA_MODEL: the model's name; without it the model parts (qa, reconcile, state's "model" mode)
  are skipped with one line;
- ENGRAM_QA_BASE_URL: any OpenAI-compatible server (default OpenAI's);
- ENGRAM_QA_API_KEY, else OPENAI_API_KEY: the key (a local server takes any);
- ENGRAM_QA_TIMEOUT: seconds a call may take (default 600: a small model on two busy cores);
- ENGRAM_QA_BANNED_TOKENS: token ids the model may not write, as ENGRAM_LLM_BANNED_TOKENS in the product
  (`ENGRAM_LLM=local` bans its model's line breaks: `python -m engram_tools.local.gguf_vocab MODEL.gguf`).

Deliberately not ENGRAM_OPENAI_BASE_URL: the product's settings read that one, so the offline parts
and the local stacks the bench starts would quietly use the model too.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engram.settings import integers

if TYPE_CHECKING:
    from openai import OpenAI

    from engram.adapters.openai.llm import OpenAILLM

NO_MODEL = (
    "no model configured (set ENGRAM_QA_MODEL, and ENGRAM_QA_BASE_URL / ENGRAM_QA_API_KEY; bench/rig/bench_model.py)"
)


@dataclass(frozen=True)
class BenchModel:
    name: str
    base_url: str | None = None
    api_key: str | None = None
    timeout_s: float = 600.0
    banned_tokens: tuple[int, ...] = ()

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> BenchModel | None:
        """None when no model is configured for the bench (ENGRAM_QA_MODEL unset or blank)."""
        env = os.environ if env is None else env
        name = env.get("ENGRAM_QA_MODEL", "").strip()
        if not name:
            return None
        return cls(
            name=name,
            base_url=env.get("ENGRAM_QA_BASE_URL") or None,
            api_key=env.get("ENGRAM_QA_API_KEY") or env.get("OPENAI_API_KEY") or None,
            timeout_s=float(env.get("ENGRAM_QA_TIMEOUT", "600")),
            banned_tokens=integers(env.get("ENGRAM_QA_BANNED_TOKENS", "")),  # as the product reads its own
        )

    def describe(self) -> dict[str, str]:
        described = {"model": self.name, "base_url": self.base_url or "https://api.openai.com/v1"}
        if self.banned_tokens:
            described["banned_tokens"] = str(len(self.banned_tokens))
        return described

    def client(self, max_retries: int = 1) -> OpenAI:
        from openai import OpenAI

        return OpenAI(
            base_url=self.base_url, api_key=self.api_key or "unused", timeout=self.timeout_s, max_retries=max_retries
        )

    def llm(self) -> OpenAILLM:
        """Engram's own LLM adapter (schema-enforced JSON) on this model, as the product calls it."""
        from engram.adapters.openai.llm import OpenAILLM

        return OpenAILLM(self.client(), self.name, self.banned_tokens)


def model_llm(modes: Sequence[str], model: BenchModel | None, out: dict[str, Any]) -> OpenAILLM | None:
    """The real model's LLM when one of `modes` is "model" (its description recorded in `out`), else None."""
    if "model" not in modes:
        return None
    if model is None:
        raise ValueError(f"mode 'model' needs a model: {NO_MODEL}")
    out["model"] = model.describe()
    return model.llm()
