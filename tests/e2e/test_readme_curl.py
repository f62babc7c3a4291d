"""Every curl of README.md and docs/*.md against http://127.0.0.1:3000 (in ```bash blocks), run as written against
the local stack: each answers
2xx. Only what a reader fills in is replaced: the URL, `$KEY`, `<task_id>` / `<execution_id>` (from the
answer of the block's command before it), and the user ids (made unique, so a delete-all in the docs
touches no other test's data). A line that is neither a curl nor the `KEY=` a reader sets fails the test."""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import ACME_KEY
from tests.e2e.stack_process import ROOT, StackProcess

pytestmark = pytest.mark.e2e
README_URL = "http://127.0.0.1:3000"
BLOCK = re.compile(r"^```bash\n(.*?)^```", re.DOTALL | re.MULTILINE)
USER_ID = re.compile(r'"user_id": "(\w+)"|user_id=(\w+)')
PLACEHOLDER = re.compile(r"<(\w+)>")


def curl_blocks(readme: str) -> list[str]:
    return [b for b in BLOCK.findall(readme) if "curl" in b and README_URL in b]


def documents() -> list[Path]:
    """The README and the reference it links to, where its examples moved."""
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]


def commands(block: str) -> list[list[str]]:
    """The block's commands as argument lists: continuation lines joined, comments dropped."""
    joined = block.replace("\\\n", " ")
    return [args for line in joined.splitlines() if (args := shlex.split(line, comments=True))]


def run_curl(args: list[str]) -> tuple[int, Any]:
    done = subprocess.run(
        [*args, "--max-time", "60", "-w", "\n%{http_code}"], capture_output=True, text=True, timeout=90
    )
    assert done.returncode == 0, f"{shlex.join(args)}: curl exited {done.returncode}: {done.stderr}"
    body, _, status = done.stdout.rpartition("\n")
    try:
        answer = json.loads(body)
    except json.JSONDecodeError:
        answer = body
    return int(status), answer


def test_every_readme_curl_answers_2xx(stack: StackProcess) -> None:
    blocks = [block for doc in documents() for block in curl_blocks(doc.read_text(encoding="utf-8"))]
    users = {u for pair in USER_ID.findall("\n".join(blocks)) for u in pair if u}
    unique = {user: f"{user}-readme-{uuid.uuid4().hex[:8]}" for user in users}
    ran: list[str] = []

    for block in blocks:
        filled: dict[str, str] = {}  # placeholder -> value from an earlier answer of this block
        for args in commands(block):
            if args == ["KEY=..."]:  # the reader sets the key; here it is the stack's
                continue
            assert args[0] == "curl", f"a docs line this test cannot run: {shlex.join(args)}"
            missing = {p for a in args for p in PLACEHOLDER.findall(a)} - set(filled)
            assert not missing, f"nothing earlier in the block answered {missing}: {shlex.join(args)}"
            args = [fill(arg, stack.url, filled, unique) for arg in args]
            status, answer = run_curl(args)
            assert 200 <= status < 300, f"{shlex.join(args)} answered {status}: {answer}"
            if isinstance(answer, dict):
                filled |= {k: v for k, v in answer.items() if k in ("task_id", "execution_id") and isinstance(v, str)}
            ran += [a.removeprefix(stack.url) for a in args if a.startswith(stack.url)]

    # None of the docs' examples was missed: start, delete-all, maintenance, graph, health, usage.
    for route in (
        "/v1/memories",
        "/v1/tasks/",
        "/v1/memories/search",
        "/v1/maintenance",
        "/v1/maintenance/arn:",
        "/v1/graph",
        "/health?deep=true",
        "/v1/usage",
    ):
        assert any(path.startswith(route) for path in ran), (route, ran)


def fill(arg: str, url: str, filled: dict[str, str], users: dict[str, str]) -> str:
    arg = arg.replace(README_URL, url).replace("$KEY", ACME_KEY)
    arg = PLACEHOLDER.sub(lambda m: filled[m.group(1)], arg)
    for user, replacement in users.items():
        arg = re.sub(rf'("user_id": "|user_id=){user}\b', rf"\g<1>{replacement}", arg)
    return arg
