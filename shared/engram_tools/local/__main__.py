"""`python -m engram_tools.local` (what `make run` runs): all of Engram on this machine, until Ctrl-C.

--port / ENGRAM_PORT           HTTP port (3000)
--data-dir / ENGRAM_DATA_DIR   where state is kept across restarts (.engram)
ENGRAM_MOTO_PORT               moto's port (any free one)
ENGRAM_LOCAL_API_KEYS          "tenant:key,other:key2"; else one key for tenant `local`
ENGRAM_LOCAL_SAVE_BEFORE_ANSWER  true (default): a write is saved before its answer; false: within 1 s
ENGRAM_LOCAL_BODY_TIMEOUT_S    seconds a request body may take to arrive in full (30); then 408
ENGRAM_LLM                     offline (default: the rules) or local (Qwen2.5-Coder-1.5B on llama.cpp,
                               installed on first use; local_model.py)
"""

from __future__ import annotations

import argparse
import errno
import logging
import os
import shlex
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from types import FrameType

from engram_tools.local import local_model
from engram_tools.local.data_lock import DataFolderInUse
from engram_tools.local.keys import LocalKey
from engram_tools.local.local_model import LocalModel
from engram_tools.local.stack import LocalStack, StackConfig, Started

log = logging.getLogger("engram_tools.local")
_OFF = ("0", "false", "no", "off")
# Measured in bench/README.md, "Reranker (issue 26)".
RERANKER_TRADE_OFF = "+0.01 LoCoMo recall@10, LongMemEval unchanged, ~200 ms more a search"


def _parse(argv: list[str] | None) -> StackConfig:
    parser = argparse.ArgumentParser(prog="python -m engram_tools.local", description=__doc__.split("\n")[0])
    parser.add_argument("--port", type=int, default=int(os.environ.get("ENGRAM_PORT", "3000")))
    parser.add_argument("--data-dir", type=Path, default=Path(os.environ.get("ENGRAM_DATA_DIR", ".engram")))
    parser.add_argument("--template", type=Path, default=Path("template.yaml"), help="the SAM template to run")
    args = parser.parse_args(argv)
    return StackConfig(
        data_dir=args.data_dir.resolve(),
        port=args.port,
        moto_port=int(os.environ.get("ENGRAM_MOTO_PORT", "0")),
        template_path=args.template,
        region=os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or "us-east-1",
        save_before_answer=os.environ.get("ENGRAM_LOCAL_SAVE_BEFORE_ANSWER", "true").lower() not in _OFF,
        body_timeout_s=_positive_seconds("ENGRAM_LOCAL_BODY_TIMEOUT_S", 30.0),
    )


def _positive_seconds(name: str, default: float) -> float:
    """A positive number of seconds from the environment; anything else stops the start naming it."""
    text = os.environ.get(name, "").strip()
    if not text:
        return default
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not 0 < value < float("inf"):
        raise SystemExit(f"{name}={text!r}: give a positive number of seconds")
    return value


def _llm_line(model: LocalModel | None) -> str:
    if model is not None:
        return model.banner_line()
    base_url = os.environ.get("ENGRAM_OPENAI_BASE_URL")
    if base_url:
        return f"{os.environ.get('ENGRAM_LLM_MODEL', 'gpt-4o-mini')} at {base_url} (ENGRAM_OPENAI_BASE_URL)"
    if os.environ.get("ENGRAM_OPENAI_API_KEY"):
        return f"{os.environ.get('ENGRAM_LLM_MODEL', 'gpt-4o-mini')} on OpenAI (ENGRAM_OPENAI_API_KEY)"
    return "none: the offline rules (ENGRAM_LLM=local for a local model, docs/local-model.md)"


def _banner(started: Started, configured: bool, model: LocalModel | None = None) -> str:
    key = next((k for k in started.keys if k.tenant_id == "local"), started.keys[0])

    def shown(k: LocalKey) -> str:
        # Configured keys are known to their owner already; the banner (often kept in a log) hides them.
        return "the one set in ENGRAM_LOCAL_API_KEYS" if configured else k.plaintext

    header = f'-H "x-api-key: {"$KEY" if configured else key.plaintext}" -H "content-type: application/json"'
    add = shlex.quote(
        '{"user_id": "alice", "messages": [{"role": "user", '
        '"content": "Hi, I am Alice. I live in Berlin and I love pizza."}]}'
    )
    search = shlex.quote('{"user_id": "alice", "query": "where does Alice live?"}')
    restored = ", ".join(f"{name} {n}" for name, n in started.restored.items() if n) or "nothing (fresh data folder)"
    embeddings = (
        "multilingual-e5-small (ENGRAM_EMBEDDER=multilingual)"
        if os.environ.get("ENGRAM_EMBEDDER") == "multilingual"
        else "all-MiniLM-L6-v2, English (ENGRAM_EMBEDDER=multilingual for other languages)"
    )
    reranker = (
        f"MaxSim over MiniLM's token vectors, top {os.environ.get('ENGRAM_SEARCH_RERANK_CANDIDATES', '20')} "
        "(ENGRAM_SEARCH_RERANKER=maxsim)"
        if os.environ.get("ENGRAM_SEARCH_RERANKER", "off").lower() == "maxsim"
        else f"off (ENGRAM_SEARCH_RERANKER=maxsim: {RERANKER_TRADE_OFF})"
    )
    others = "".join(f"\n  tenant {k.tenant_id}: {shown(k)}" for k in started.keys if k is not key)
    return f"""
Engram is running at {started.url}   (started in {started.seconds:.1f} s; restored: {restored})
  API key (tenant {key.tenant_id}): {shown(key)}{others}
  moto endpoint: {started.moto_endpoint}
  embeddings: {embeddings}
  LLM: {_llm_line(model)}
  search reranker: {reranker}
  API docs: {started.url}/docs
  Memory page: {started.url}/ui   (enter the API key above)
  sam local invoke: --env-vars {started.env_file}   (README: sam local invoke)

Try it:
  curl -s -X POST {started.url}/v1/memories {header} -d {add}
  # a second later:
  curl -s -X POST {started.url}/v1/memories/search {header} -d {search}

Ctrl-C stops it; memories stay in {os.environ.get("ENGRAM_DATA_DIR")}.
"""


def _port_taken(err: Exception) -> bool:
    return isinstance(err, OSError) and err.errno == errno.EADDRINUSE


def main(argv: list[str] | None = None) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # moto's per-request lines
    logging.getLogger("botocore.credentials").setLevel(logging.WARNING)
    config = _parse(argv)
    stop = threading.Event()
    first_signal: list[float] = []

    def on_signal(signum: int, frame: FrameType | None) -> None:
        # A second Ctrl-C: the user does not want to wait for the final snapshot. Only SIGINT, and
        # not within a second, because `timeout` or a process manager may deliver one signal twice.
        if first_signal and signum == signal.SIGINT and time.monotonic() - first_signal[0] > 1.0:
            os._exit(130)
        if not first_signal:
            first_signal.append(time.monotonic())
            log.info("stopping (signal %d); press Ctrl-C again to quit without saving", signum)
        stop.set()

    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGTERM, on_signal)
    stack = LocalStack(config)
    model: LocalModel | None = None
    try:
        # The folder before the model: a second `make run` on it is refused at once, not after a
        # model install and load, and never touches the model files under it.
        stack.claim()
        if local_model.wanted():
            # Before the stack: its functions read ENGRAM_OPENAI_BASE_URL when they start.
            model = local_model.start(config.data_dir)
        started = stack.start()
        configured = bool(os.environ.get("ENGRAM_LOCAL_API_KEYS", "").strip())
        print(_banner(started, configured, model), flush=True)
        while not stop.wait(0.5):
            pass
    except DataFolderInUse as err:  # nothing was started (stop() below has nothing to do)
        log.error("cannot start the local stack: %s", err)
        return 1
    except (OSError, ValueError, RuntimeError, subprocess.CalledProcessError) as err:
        # a taken port, a bad ENGRAM_LOCAL_API_KEYS or template, a local model that did not install or start
        hint = f" (port {config.port}: choose another with --port or ENGRAM_PORT)" if _port_taken(err) else ""
        log.error("cannot start the local stack: %s%s", err, hint)
        return 1
    finally:
        stack.stop()
        if model is not None:
            model.stop()
    log.info("stopped")
    return 0


if __name__ == "__main__":
    code = main()
    # Everything is saved by now. Skip the interpreter's final garbage collection of moto's in-memory
    # state: it takes seconds, and over a minute on a busy machine, for nothing.
    logging.shutdown()
    sys.stdout.flush()
    os._exit(code)
