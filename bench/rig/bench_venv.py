"""The bench's own virtual environment, bench/.mem0-venv: mem0 for the side-by-side part
(bench/parts/mem0_compare.py) and matplotlib for the charts (bench/report/charts.py), never dependencies
of Engram. Made on first use."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bench.rig.procs import ROOT

VENV = ROOT / "bench" / ".mem0-venv"
PACKAGES = ["mem0ai==2.2.1", "faiss-cpu==1.15.1", "matplotlib==3.11.2"]  # matplotlib: bench/report/charts.py


def venv_python() -> Path:
    return VENV / "bin" / "python"


def ensure_venv() -> Path:
    """Creates bench/.mem0-venv with mem0 (and faiss, matplotlib) unless it is there already."""
    python = venv_python()
    marker = VENV / ".bench-installed"
    if marker.is_file() and marker.read_text() == " ".join(PACKAGES):
        return python
    print("  creating bench/.mem0-venv (mem0ai, faiss-cpu, matplotlib); this takes a few minutes", flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(VENV)], check=True)
    pip = [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check"]
    subprocess.run([*pip, "--upgrade", "pip"], check=True)
    subprocess.run([*pip, *PACKAGES], check=True, env={**os.environ, "MEM0_TELEMETRY": "False"})
    marker.write_text(" ".join(PACKAGES))
    return python
