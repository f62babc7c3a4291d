"""The security scan of `make test`: checkov over template.yaml, as written and as the SAM transform
makes it, fails on any finding that security/checkov-skips.yaml does not list with a reason.

checkov runs once per `make test` (one call over every file, 5-40 s on a busy machine; the test
processes share its result through a locked file), from the venv that `make test` builds for it
($CHECKOV_CLI; its pins clash with the project's boto3). A copy of the template with a
deliberately added finding proves that the gate fails on it."""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import tempfile
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.integration.test_template import ROOT, TEMPLATE, translated

SKIPS = ROOT / "security" / "checkov-skips.yaml"
CHECKOV_VERSION = "3.3.30"

Finding = tuple[str, str]  # (check id, logical id)


def checkov_cli() -> str:
    cli = os.environ.get("CHECKOV_CLI")
    if not cli:
        pytest.skip("CHECKOV_CLI is not set: run through `make test`, which installs checkov and sets it")
    return cli


def skips() -> dict[str, dict[str, Any]]:
    """check id -> its entry (resources, reason)."""
    entries = yaml.safe_load(SKIPS.read_text(encoding="utf-8"))["skips"]
    return {entry["check"]: entry for entry in entries}


def unlisted(findings: set[Finding]) -> set[Finding]:
    """The findings that no skip covers: each fails the scan."""
    listed = skips()
    return {(check, res) for check, res in findings if res not in listed.get(check, {}).get("resources", [])}


def stale(findings: set[Finding]) -> set[Finding]:
    """Skips that match no finding any more (the resource was fixed or renamed)."""
    listed = {(check, res) for check, entry in skips().items() for res in entry["resources"]}
    return listed - findings


def _with_a_finding(text: str) -> str:
    """template.yaml with the REST API's access log removed: CKV_AWS_76, which is not skipped."""
    start = text.index("      AccessLogSetting:\n")
    end = text.index("      MethodSettings:\n", start)
    return text[:start] + text[end:]


@cache
def scan() -> dict[str, set[Finding]]:
    """Findings by what was scanned: "template", "transformed", "with_finding"; computed once for
    this template and checkov, whichever test process asks first (the others wait for it)."""
    cli = checkov_cli()
    digest = hashlib.sha256(TEMPLATE.read_bytes() + Path(__file__).read_bytes() + cli.encode()).hexdigest()[:16]
    cached = Path(tempfile.gettempdir()) / f"engram-checkov-{digest}.json"
    with open(f"{cached}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not cached.exists():
            found = _run_checkov(cli)
            cached.write_text(json.dumps({k: sorted(v) for k, v in found.items()}), encoding="utf-8")
    return {k: {(c, r) for c, r in v} for k, v in json.loads(cached.read_text(encoding="utf-8")).items()}


def _run_checkov(cli: str) -> dict[str, set[Finding]]:
    with tempfile.TemporaryDirectory(prefix="engram-checkov-") as tmp:
        files = {
            "template": TEMPLATE,
            "transformed": Path(tmp) / "transformed.json",
            "with_finding": Path(tmp) / "with_finding.yaml",
        }
        files["transformed"].write_text(json.dumps(translated()), encoding="utf-8")
        files["with_finding"].write_text(_with_a_finding(TEMPLATE.read_text(encoding="utf-8")), encoding="utf-8")
        args = [cli, "--framework", "cloudformation", "--quiet", "--compact", "-o", "json"]
        for path in files.values():
            args += ["-f", str(path)]
        run = subprocess.run(args, capture_output=True, text=True, timeout=600, check=False, cwd=ROOT)
    assert run.returncode in (0, 1), run.stderr[-2000:]  # 1: findings, reported below
    reports = json.loads(run.stdout)
    reports = reports if isinstance(reports, list) else [reports]
    found: dict[str, set[Finding]] = {name: set() for name in files}
    for report in reports:
        assert report["summary"]["checkov_version"] == CHECKOV_VERSION
        assert report["summary"]["parsing_errors"] == 0
        for check in report["results"]["failed_checks"]:
            name = next(n for n, p in files.items() if check["file_path"].endswith(p.name))
            found[name].add((check["check_id"], check["resource"].rsplit(".", 1)[-1]))
    return found


def test_every_skip_says_why() -> None:
    for check, entry in skips().items():
        assert check.startswith("CKV"), check
        assert entry["resources"], check
        assert len(entry["reason"].split()) >= 10, f"{check}: a skip needs its reason"


def test_the_template_has_no_unreviewed_finding() -> None:
    found = scan()
    assert unlisted(found["template"]) == set()
    assert unlisted(found["transformed"]) == set()


def test_no_skip_outlives_its_finding() -> None:
    found = scan()
    assert stale(found["template"] | found["transformed"]) == set()


def test_an_added_finding_fails_the_scan() -> None:
    found = scan()["with_finding"]
    assert unlisted(found) == {("CKV_AWS_76", "EngramApi")}  # API Gateway access logging
