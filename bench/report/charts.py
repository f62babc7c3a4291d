"""PNG charts of bench/results/*.json. Runs with the bench venv's Python (bench/.mem0-venv has
matplotlib); standard library + matplotlib only, no Engram imports. Prints each file written.

    bench/.mem0-venv/bin/python bench/report/charts.py bench/results
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt


def _load(folder: Path, name: str) -> dict[str, Any] | None:
    path = folder / f"{name}.json"
    return json.loads(path.read_text()) if path.is_file() else None


def recall_chart(folder: Path) -> Path | None:
    recall = _load(folder, "locomo_recall")
    if not recall:
        return None
    series = {name: data["overall"] for name, data in recall["results"].items()}
    mem0 = _load(folder, "mem0_compare") or {}
    for store, data in (mem0.get("recall") or {}).items():
        series[f"mem0 ({store})"] = data["results"]["overall"]
    ks = ["recall@5", "recall@10", "recall@20"]
    fig, ax = plt.subplots(figsize=(10, 4.5))
    width = 0.8 / len(series)
    for i, (name, scores) in enumerate(series.items()):
        ax.bar([k + i * width for k in range(len(ks))], [scores[k] for k in ks], width, label=name)
    ax.axhline(0.70, color="grey", linestyle="--", linewidth=1, label="target recall@10")
    ax.set_xticks([k + 0.4 - width / 2 for k in range(len(ks))], ks)
    ax.set_ylim(0, 1)
    ax.set_title("LoCoMo evidence recall, categories 1-4")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return _save(fig, folder / "recall.png")


def latency_chart(folder: Path) -> Path | None:
    latency = _load(folder, "search_latency")
    if not latency:
        return None
    rows = [r for r in latency["cases"] if r["layout"] == "one user"]
    levels = [lvl for lvl in ("rank", "rank+embed", "service", "http") if any(lvl in r for r in rows)]
    fig, ax = plt.subplots(figsize=(8, 4.5))
    for level in levels:
        points = [(r["memories"], r[level]["p50_ms"]) for r in rows if level in r]
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"Engram {level}")
    mem0 = _load(folder, "mem0_compare") or {}
    for store in ("qdrant", "faiss"):
        points = [
            (r["memories"], r["mem0 search"]["p50_ms"]) for r in mem0.get("latency", []) if r["mem0_store"] == store
        ]
        if points:
            ax.plot([p[0] for p in points], [p[1] for p in points], marker="s", linestyle="--", label=f"mem0 {store}")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("memories of one user")
    ax.set_ylabel("p50 latency (ms)")
    ax.set_title("Search latency, top_k=10")
    ax.legend(fontsize=8)
    return _save(fig, folder / "latency.png")


def _save(fig: Any, path: Path) -> Path:
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def main() -> int:
    folder = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/results")
    for chart in (recall_chart, latency_chart):
        path = chart(folder)
        if path is not None:
            print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
