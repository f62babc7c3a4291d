"""Results: one JSON file per part in bench/results/, a Markdown summary, and PNG charts.

Charts are drawn by bench/report/charts.py with matplotlib from the bench's own environment
(bench/.mem0-venv), never from Engram's; without it the summary says so and goes on.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

from bench.report.report_goals import GOALS
from bench.report.report_tables import TARGETS, sections

RESULTS = Path(__file__).resolve().parents[1] / "results"
README = Path(__file__).resolve().parents[1] / "README.md"
LATEST = "## Latest results"


def save(part: str, data: dict[str, Any], folder: Path = RESULTS) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{part}.json"
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n")
    tmp.replace(path)
    return path


def load_all(folder: Path = RESULTS) -> dict[str, Any]:
    return {p.stem: json.loads(p.read_text()) for p in sorted(folder.glob("*.json"))}


def charts(folder: Path = RESULTS) -> list[str]:
    """PNG charts via the bench venv's matplotlib; returns the files written (none without it)."""
    from bench.rig.bench_venv import venv_python

    python = venv_python()
    if not python.is_file():
        return []
    script = Path(__file__).resolve().parent / "charts.py"
    done = subprocess.run([str(python), str(script), str(folder)], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        print(f"  charts skipped: {done.stderr.strip()[-500:]}", flush=True)
        return []
    return [line for line in done.stdout.splitlines() if line.endswith(".png")]


def summary(folder: Path = RESULTS, pngs: list[str] | None = None) -> str:
    results = load_all(folder)
    lines = ["# Engram benchmark results", ""]
    run = results.get("run", {})
    if run:
        lines += [run_line(run), ""]
    lines += ["## Targets", "", "| target | result | met |", "|---|---|---|"]
    for name, check in [*TARGETS, *GOALS]:
        value, met = check(results)
        lines.append(f"| {name} | {value} | {met} |")
    lines.append("")
    for title, table in sections(results):
        lines += [f"## {title}", "", *table, ""]
    for png in pngs or []:
        name = Path(png).name
        lines += [f"![{name}]({name})", ""]
    text = "\n".join(lines)
    (folder / "summary.md").write_text(text)
    return text


def run_line(run: dict[str, Any]) -> str:
    """When, where and what a run ran: its sittings too, when it was resumed (bench/report/run_record.py)."""
    sittings = run.get("sittings", [])
    resumed = ""
    if len(sittings) > 1:
        resumed = f" in {len(sittings)} sittings (`--resume`; started {', '.join(s['started'] for s in sittings)})"
    return (
        f"Run {run.get('started', '?')} on {run.get('machine', '?')}, commit {run.get('commit', '?')}, "
        f"mode {run.get('mode', '?')}, {run.get('wall_s', '?')} s in all{resumed}."
    )


def update_readme(text: str, readme: Path = README, folder: Path = RESULTS) -> None:
    """Put a full run's summary under the README's "Latest results" heading (replacing what was
    there), its sections one level down and its pictures linked from the README's folder."""
    where = folder.relative_to(readme.parent).as_posix()
    lines = []
    for line in text.split("\n")[1:]:  # without the summary's own title
        if line.startswith("## "):
            line = "#" + line
        elif line.startswith("!["):
            line = line.replace("](", f"]({where}/", 1)
        lines.append(line)
    head = readme.read_text().split(LATEST, 1)[0]
    readme.write_text(f"{head}{LATEST}\n\n" + "\n".join(lines).strip() + "\n")
