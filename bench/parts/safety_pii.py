"""PII and secrets (issue 44): how much of the personal data said in chat redaction finds, and how much it
takes that is not personal data, per kind, on a labelled set (bench/data/safety_pii.json, written by
bench/data/safety_pii_build.py: 306 spans of seven kinds in chat sentences of several countries' formats, and
look-alikes: order and tracking numbers, dates, versions, invalid cards and IBANs, "the password is wrong").

    python -m bench.parts.safety_pii            # part "pii" of `make bench`; bench/results/safety_pii.json
    python -m bench.parts.safety_pii --show     # each miss and false find of the tuning third, to read

Each sentence goes through `engram.safety.redaction.find` with every kind asked for (what a tenant with
`redact: [all kinds]` gets). A labelled span is found when a span of its kind covers it whole (a part left
readable is a leak); a span found is right when it overlaps a labelled span of its kind. recall = found /
labelled, precision = right / found, per kind and for the structured kinds together (email, phone, card,
iban, credential: the issue's goal, recall >= 0.98 at precision >= 0.95). The tuning two thirds and the
held-aside third (every third item of the first 391, marked in the file; the carry-over items after them,
written later to check that the methods carry over, are all tuning) are scored and reported apart.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engram.domain.policy import RedactKind
from engram.safety.redaction import Span, find

DATA = Path(__file__).resolve().parents[1] / "data" / "safety_pii.json"
STRUCTURED = ("email", "phone", "card", "iban", "credential")
KINDS = tuple(k.value for k in RedactKind)
GOAL = {"recall": 0.98, "precision": 0.95}
SPLITS = ("tuning", "held_aside")


@dataclass(frozen=True)
class Labelled:
    kind: str
    start: int
    end: int
    value: str


@dataclass(frozen=True)
class Item:
    index: int
    text: str
    spans: tuple[Labelled, ...]
    held_aside: bool
    note: str = ""
    carry_over: bool = False  # written after the first rounds of tuning, to check that the methods carry over


def load(path: Path = DATA) -> list[Item]:
    """The labelled sentences, each span located by its exact value in the sentence (its first occurrence)."""
    data = json.loads(path.read_text(encoding="utf-8"))
    items = []
    for i, raw in enumerate(data["items"]):
        spans = []
        for s in raw["spans"]:
            start = raw["text"].find(s["value"])
            if start < 0:
                raise ValueError(f"item {i}: {s['value']!r} is not in {raw['text']!r}")
            spans.append(Labelled(s["kind"], start, start + len(s["value"]), s["value"]))
        carry_over = raw.get("set") == "carry-over"
        items.append(Item(i, raw["text"], tuple(spans), bool(raw["held_aside"]), raw.get("note", ""), carry_over))
    return items


Finder = Callable[[str], Sequence[Span]]


def find_all(text: str) -> list[Span]:
    return find(text, list(RedactKind))


def score(items: Sequence[Item], finder: Finder = find_all) -> dict[str, Any]:
    """Recall and precision per kind, for the structured kinds together and overall; the misses and the
    false finds, each with its sentence."""
    counts = {k: {"labelled": 0, "found": 0, "predicted": 0, "right": 0} for k in KINDS}
    misses: list[dict[str, Any]] = []
    false_finds: list[dict[str, Any]] = []
    for item in items:
        predicted = list(finder(item.text))
        for gold in item.spans:
            row = counts[gold.kind]
            row["labelled"] += 1
            if any(p.kind.value == gold.kind and p.start <= gold.start and p.end >= gold.end for p in predicted):
                row["found"] += 1
            else:
                seen = [
                    f"{p.kind.value}:{item.text[p.start : p.end]}"
                    for p in predicted
                    if p.start < gold.end and gold.start < p.end
                ]
                misses.append({"kind": gold.kind, "value": gold.value, "text": item.text, "found_instead": seen})
        for p in predicted:
            row = counts[p.kind.value]
            row["predicted"] += 1
            if any(g.kind == p.kind.value and p.start < g.end and g.start < p.end for g in item.spans):
                row["right"] += 1
            else:
                false_finds.append(
                    {"kind": p.kind.value, "found": item.text[p.start : p.end], "text": item.text, "note": item.note}
                )
    per_kind = {k: _rates(row) for k, row in counts.items()}
    return {
        "structured": _rates(_sum(counts, STRUCTURED)),
        "all": _rates(_sum(counts, KINDS)),
        "per_kind": per_kind,
        "sentences": len(items),
        "lookalike_sentences": sum(not i.spans for i in items),
        "lookalikes_redacted": sum(1 for f in false_finds if f["note"]),
        "misses": misses,
        "false_finds": false_finds,
    }


def _sum(counts: dict[str, dict[str, int]], kinds: Sequence[str]) -> dict[str, int]:
    return {field: sum(counts[k][field] for k in kinds) for field in ("labelled", "found", "predicted", "right")}


def _rates(row: dict[str, int]) -> dict[str, Any]:
    return {
        "recall": round(row["found"] / row["labelled"], 4) if row["labelled"] else None,
        "precision": round(row["right"] / row["predicted"], 4) if row["predicted"] else None,
        **row,
    }


def meets_goal(rates: dict[str, Any]) -> bool:
    return bool(
        rates["recall"] is not None
        and rates["recall"] >= GOAL["recall"]
        and (rates["precision"] is None or rates["precision"] >= GOAL["precision"])
    )


def run(path: Path = DATA) -> dict[str, Any]:
    items = load(path)
    out: dict[str, Any] = {
        "data": str(path.relative_to(Path(__file__).resolve().parents[2])),
        "goal": {**GOAL, "kinds": list(STRUCTURED)},
        "labelled_spans": sum(len(i.spans) for i in items),
    }
    for split in SPLITS:
        scored = score([i for i in items if i.held_aside == (split == "held_aside")])
        scored["meets_goal"] = meets_goal(scored["structured"])
        if split == "tuning":  # the carry-over items alone, as well
            scored["carry_over"] = score([i for i in items if i.carry_over])["structured"]
        out[split] = scored
    return out


def _print(data: dict[str, Any], show: bool) -> None:
    for split in SPLITS:
        r = data[split]
        s = r["structured"]
        print(
            f"{split:10s} structured recall {s['recall']} ({s['found']}/{s['labelled']}) precision {s['precision']}"
            f" ({s['right']}/{s['predicted']})  look-alikes redacted {r['lookalikes_redacted']}/"
            f"{r['lookalike_sentences']}  goal met: {r['meets_goal']}"
        )
        for kind, row in r["per_kind"].items():
            print(
                f"    {kind:12s} recall {row['recall']} ({row['found']}/{row['labelled']})"
                f"  precision {row['precision']} ({row['right']}/{row['predicted']})"
            )
    if show:  # the tuning third only: the held-aside misses are not read while tuning
        for miss in data["tuning"]["misses"]:
            print("MISS", json.dumps(miss, ensure_ascii=False))
        for false in data["tuning"]["false_finds"]:
            print("FALSE", json.dumps(false, ensure_ascii=False))


def main(argv: list[str] | None = None) -> int:
    import argparse

    from bench.report import report

    parser = argparse.ArgumentParser(prog="python -m bench.parts.safety_pii", description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print each miss and false find of the tuning third")
    args = parser.parse_args(argv)
    data = run()
    report.save("safety_pii", data)
    _print(data, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
