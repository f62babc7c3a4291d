"""pip-audit of what the deployed dependency layer installs (layers/deps/requirements.txt, resolved as
`sam build` resolves it), against PyPI's advisory data. A known vulnerability fails `make test`. When
the advisory database cannot be reached (offline, or a mirror without PyPI's JSON API), the test is
skipped with one line saying so: nothing was audited, and the summary says that rather than pass."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.figures import record

ROOT = Path(__file__).resolve().parents[2]
LAYER_REQUIREMENTS = ROOT / "layers" / "deps" / "requirements.txt"
TIMEOUT_S = 600


@dataclass
class Audit:
    audited: list[str]
    not_audited: list[str]
    vulnerable: list[str]  # "package version: advisory ids"
    failure: str | None = None  # pip-audit could not run to the end (e.g. no index to resolve from)

    @property
    def unreachable(self) -> str | None:
        """Why nothing could be audited, in one line; None when the audit counts."""
        if self.failure is not None:
            return f"pip-audit could not run ({self.failure}); {LAYER_REQUIREMENTS.name} not audited"
        if not self.audited and not self.vulnerable:
            return (
                f"pip-audit: the advisory database (PyPI's JSON API) could not be reached; "
                f"{len(self.not_audited)} packages of the deps layer not audited"
            )
        return None


def read_audit(returncode: int, stdout: str, stderr: str) -> Audit:
    """pip-audit's JSON report (it exits 1 when it found vulnerabilities, still writing the report)."""
    try:
        report: dict[str, Any] = json.loads(stdout)
    except ValueError:
        last = (stderr.strip().splitlines() or [f"exit code {returncode}"])[-1]
        return Audit([], [], [], failure=last[:200])
    audited, not_audited, vulnerable = [], [], []
    for dep in report.get("dependencies", []):
        name = f"{dep['name']} {dep.get('version', '?')}"
        if dep.get("skip_reason"):
            not_audited.append(name)
            continue
        audited.append(name)
        if dep.get("vulns"):
            vulnerable.append(f"{name}: {', '.join(v['id'] for v in dep['vulns'])}")
    return Audit(audited, not_audited, vulnerable)


def test_the_deps_layer_has_no_known_vulnerability(tmp_path: Path) -> None:
    command = [
        sys.executable, "-m", "pip_audit", "--requirement", str(LAYER_REQUIREMENTS), "--vulnerability-service",
        "pypi", "--format", "json", "--progress-spinner", "off", "--cache-dir", str(tmp_path / "cache"),
    ]  # fmt: skip
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=TIMEOUT_S, cwd=tmp_path, check=False)
    except subprocess.TimeoutExpired:
        pytest.skip(f"pip-audit did not finish in {TIMEOUT_S} s (no network?); the deps layer was not audited")
    audit = read_audit(done.returncode, done.stdout, done.stderr)
    if audit.unreachable is not None:
        pytest.skip(audit.unreachable)
    record(
        "pip-audit of the deps layer",
        packages_audited=len(audit.audited),
        packages_not_audited=len(audit.not_audited),
        vulnerabilities=len(audit.vulnerable),
    )
    assert audit.vulnerable == [], "known vulnerabilities in the deployed layer: upgrade these"


def test_a_known_vulnerability_fails_and_an_unreachable_database_only_says_so() -> None:
    report = {
        "dependencies": [
            {"name": "requests", "version": "2.19.1", "vulns": [{"id": "PYSEC-2018-28", "fix_versions": ["2.20.0"]}]},
            {"name": "pydantic", "version": "2.9.0", "vulns": []},
        ]
    }
    found = read_audit(1, json.dumps(report), "")
    assert found.vulnerable == ["requests 2.19.1: PYSEC-2018-28"] and found.unreachable is None

    skipped = {"name": "pydantic", "skip_reason": "Dependency not found on PyPI and could not be audited"}
    offline = {"dependencies": [skipped]}
    assert "could not be reached" in (read_audit(0, json.dumps(offline), "").unreachable or "")
    broken = read_audit(1, "", "ERROR: Could not find a version that satisfies the requirement pydantic>=2.7")
    assert "could not run" in (broken.unreachable or "") and broken.vulnerable == []
