"""bench/ is rooms (bench/README.md, "Where things are"): every module in one, no module named as a runtime
module is, and every `python -m bench....` command the README, the docs and the bench name runs a module
that exists."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
BENCH = ROOT / "bench"
ROOMS = {"parts", "labs", "data", "report", "doubles", "rig"}
RUNTIME = [ROOT / "shared" / "engram", ROOT / "shared" / "engram_tools", ROOT / "functions"]
COMMAND = re.compile(r"python -m (bench(?:\.[a-z_0-9]+)+)")


def bench_modules() -> list[Path]:
    return sorted(p for p in BENCH.rglob("*.py") if ".mem0-venv" not in p.parts)


def test_every_bench_module_is_in_a_room() -> None:
    loose = [p.relative_to(BENCH) for p in bench_modules() if p.parent == BENCH]
    assert sorted(map(str, loose)) == ["__init__.py", "run_all.py"]
    assert {p.relative_to(BENCH).parts[0] for p in bench_modules() if p.parent != BENCH} == ROOMS


def test_no_bench_module_repeats_a_runtime_module_name() -> None:
    runtime = {p.stem for folder in RUNTIME for p in folder.rglob("*.py")} - {"__init__"}
    runtime |= {p.name for folder in RUNTIME for p in folder.rglob("*") if p.is_dir()}
    assert sorted(p.relative_to(BENCH) for p in bench_modules() if p.stem in runtime) == []


def test_every_bench_command_in_the_docs_names_a_module() -> None:
    texts = [ROOT / "README.md", BENCH / "README.md", *sorted((ROOT / "docs").glob("*.md")), *bench_modules()]
    named = {m.group(1) for path in texts for m in COMMAND.finditer(path.read_text(encoding="utf-8"))}
    assert named, "no bench command found: the pattern is wrong"
    missing = sorted(n for n in named if not (ROOT / f"{n.replace('.', '/')}.py").is_file())
    assert missing == []


# Each room imports only rooms below it: what run_all and the labs stand on never reaches back up.
ROOM_MAY_IMPORT = {
    "doubles": set(),
    "rig": {"doubles"},
    "data": {"rig", "doubles"},
    "report": {"data", "rig", "doubles"},
    "parts": {"report", "data", "rig", "doubles"},
    "labs": {"parts", "report", "data", "rig", "doubles"},
}


def bench_rooms_imported(path: Path) -> set[str]:
    rooms: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else []
        if isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
        rooms |= {n.split(".")[1] for n in names if n.startswith("bench.") and n.split(".")[1] in ROOMS}
    return rooms


def test_each_room_imports_only_the_rooms_below_it() -> None:
    upward = {
        f"{p.relative_to(BENCH)} -> {room}"
        for p in bench_modules()
        if p.parent != BENCH
        for room in bench_rooms_imported(p) - ROOM_MAY_IMPORT[p.relative_to(BENCH).parts[0]]
        if room != p.relative_to(BENCH).parts[0]
    }
    assert sorted(upward) == []
