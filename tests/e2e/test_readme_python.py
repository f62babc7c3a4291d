"""The README's Python quickstart, run as written by a fresh interpreter against the local stack (the settings
it reads from the environment, its user renamed so reruns start empty): it prints what it promises, and it
stays within the ten lines the README allows it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import ROOT, StackProcess

pytestmark = pytest.mark.e2e


def quickstart() -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    section = readme[readme.index("### Python") :]
    found = re.search(r"^```python\n(.*?)^```", section, re.DOTALL | re.MULTILINE)
    assert found, "README has a python block under ### Python"
    return found.group(1)


def test_the_readme_python_quickstart_prints_what_it_promises(stack: StackProcess, tmp_path: Path) -> None:
    code = quickstart()
    assert len(code.strip().splitlines()) <= 10, code
    script = tmp_path / "quickstart.py"
    script.write_text(code.replace('"alice"', f'"readme-{uuid.uuid4().hex[:8]}"'), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENGRAM_")}
    env |= {"ENGRAM_URL": stack.url, "ENGRAM_API_KEY": ACME_KEY}

    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, timeout=120)

    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines == ["['ADD Lives in Berlin']", "Lives in Berlin", "rejected: top_k"], done.stdout
