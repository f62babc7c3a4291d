"""The client installed as README says, `pip install "./clients/python[cli]"`, into a fresh virtual
environment (no system site packages): commands whose extra is missing say which extra in one line, and
the command they name installs it."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PIP_TIMEOUT_S = 600  # only guards against a hang: pip builds the wheel and may read PyPI


@pytest.fixture(scope="module")
def cli_only(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding `./clients/python[cli]` and nothing else. Built without pip of its own (ensurepip
    costs seconds); this environment's pip installs into it with --python, resolving as its own would."""
    env_dir = tmp_path_factory.mktemp("client-venv") / "venv"
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(env_dir)
    pip_install(env_dir, f"{ROOT / 'clients' / 'python'}[cli]")
    for module in ("websockets", "mcp"):
        probe = subprocess.run([str(env_dir / "bin" / "python"), "-c", f"import {module}"], capture_output=True)
        assert probe.returncode != 0, f"{module} came with the cli extra: these tests would prove nothing"
    return env_dir


def pip_install(env_dir: Path, *requirements: str) -> None:
    command = [sys.executable, "-m", "pip", "--python", str(env_dir / "bin" / "python"), "install", "-q"]
    done = subprocess.run([*command, *requirements], capture_output=True, text=True, timeout=PIP_TIMEOUT_S)
    assert done.returncode == 0, done.stderr


def engram(env_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # A closed port: nothing here may depend on a server; ENGRAM_USER_ID is unset so `mcp` lacks --user-id too.
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env |= {"ENGRAM_URL": "http://127.0.0.1:9", "ENGRAM_API_KEY": "k", "COLUMNS": "80"}
    return subprocess.run(
        [str(env_dir / "bin" / "engram"), *args], capture_output=True, text=True, env=env, timeout=120
    )


def one_line(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


def test_help_works_without_the_extras(cli_only: Path) -> None:
    for command in ("tail", "mcp"):
        shown = engram(cli_only, command, "--help")
        assert shown.returncode == 0, shown.stderr
        assert f"engram {command}" in shown.stdout


def test_mcp_without_its_extra_names_it_in_one_line(cli_only: Path) -> None:
    for args in (("mcp",), ("mcp", "--user-id", "alice")):
        result = engram(cli_only, *args)
        assert result.returncode == 1
        assert one_line(result) == (
            "engram mcp needs the 'mcp' extra (No module named 'mcp'): pip install \"engram-client[mcp]\""
        )


@pytest.mark.parametrize(
    ("module", "extra", "missing"),
    [("langgraph_store", "langgraph", "langgraph"), ("langchain_retriever", "langchain", "langchain_core")],
)
def test_an_adapter_without_its_extra_names_it(cli_only: Path, module: str, extra: str, missing: str) -> None:
    python = str(cli_only / "bin" / "python")
    result = subprocess.run([python, "-c", f"import engram_client.{module}"], capture_output=True, text=True)
    assert result.returncode == 1
    assert (
        result.stderr.strip()
        .splitlines()[-1]
        .endswith(f"extra (No module named '{missing}'): pip install \"engram-client[{extra}]\"")
    )


def test_tail_without_its_extra_names_it_and_that_command_installs_it(cli_only: Path) -> None:
    """Last in this file: it installs the events extra into the shared venv."""
    result = engram(cli_only, "tail", "--user-id", "alice")
    assert result.returncode == 1
    line = one_line(result)
    assert line == (
        "engram tail needs the 'events' extra (No module named 'websockets'): pip install \"engram-client[events]\""
    )

    # The hint, run as printed (engram-client is installed already: pip adds the extra's packages).
    pip_install(cli_only, *shlex.split(line.split("pip install ", 1)[1]))
    after = engram(cli_only, "tail")
    assert after.returncode == 1  # nothing listens on port 9: tail now gets as far as connecting
    assert one_line(after).startswith("error: ws://127.0.0.1:9/v1/events refused the upgrade")
