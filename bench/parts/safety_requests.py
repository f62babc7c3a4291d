"""Requests said in chat (issue 44): "don't remember anything about X", "forget what I said about X", "you can
remember X again", honoured from that message on, with nothing stored against them; and sentences that only
look like requests ("I never remember anything about maths") changing nothing. On labelled conversations
(bench/data/safety_requests.json, written by bench/data/safety_requests_build.py: 64 with a request, 24 with a
look-alike).

    python -m bench.parts.safety_requests          # also part "requests" of `make bench`
    python -m bench.parts.safety_requests --show   # each conversation not honoured, of the tuning third
    python -m bench.parts.safety_requests --tuning --show   # the tuning conversations only (while tuning)

Each conversation is one user's messages, added one by one through the product offline
(bench/rig/safety_stack.py: the API function and the worker on the bootstrap Container, moto, the local MiniLM,
no LLM). At the end, each marked message's marker (a word of it) is looked for, as a whole word, in the
user's current memories (GET /v1/memories, memories of kind "instruction" aside): it must be there
(`stored: true`) or nowhere (`stored: false`). A conversation is honoured when every mark holds and, for a
look-alike, the user's own policy (GET /v1/config?user_id=) is still empty. Each conversation is also run
without its requests (the control): a marked message whose marker is not stored even then tests nothing,
and is counted as untestable. The tuning two thirds and the held-aside third (every third conversation
of each kind, marked in the file) are scored and reported apart, and the carry-over conversations (tuning,
written later to check that the reader holds for other wording) once more on their own. A request said in the
middle of a longer message may mark the rest of it, which must be stored (its control is the message
without the request). Goal (issue 44, held-aside): honoured in
>= 0.95 of conversations.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from bench.rig.safety_stack import Product, offline_product

DATA = Path(__file__).resolve().parents[1] / "data" / "safety_requests.json"
SPLITS = ("tuning", "held_aside")
CARRY_OVER = "carry_over"  # of the tuning split: the conversations written to check carry-over
GOAL = 0.95


def load(path: Path = DATA) -> list[dict[str, Any]]:
    return list(json.loads(path.read_text(encoding="utf-8"))["conversations"])


def holds(marker: str, memories: Sequence[str]) -> bool:
    """Whether a marker is a whole word (or words) of any memory, whatever its case."""
    pattern = re.compile(rf"(?<!\w){re.escape(marker)}(?!\w)", re.IGNORECASE)
    return any(pattern.search(m) for m in memories)


def judge(
    conv: dict[str, Any], memories: Sequence[str], own_exclude: Sequence[str], control: Sequence[str]
) -> dict[str, Any]:
    """A conversation's verdict from what the user holds at the end, their own policy, and what the same
    messages without the requests stored (the control)."""
    leaked, lost, untestable = [], [], []
    for turn in conv["turns"]:
        if "marker" not in turn:
            continue
        present = holds(turn["marker"], memories)
        if turn["stored"] and not present:
            lost.append(turn["say"])
        if not turn["stored"] and present:
            leaked.append(turn["say"])
        if not holds(turn["marker"], control):
            untestable.append(turn["say"])
    policy_changed = conv["kind"] == "not_a_request" and bool(own_exclude)
    return {
        "id": conv["id"],
        "kind": conv["kind"],
        "held_aside": conv["held_aside"],
        "carry_over": conv.get("carry_over", False),
        "honoured": not leaked and not lost and not policy_changed,
        "leaked": leaked,
        "lost": lost,
        "untestable": untestable,
        "own_exclude": list(own_exclude),
    }


def _said(product: Product, user: str, turns: Sequence[dict[str, Any]]) -> list[str]:
    for turn in turns:
        product.add(user, turn["say"])
    return [m["memory"] for m in product.memories(user) if m.get("kind") != "instruction"]


def measure(conversations: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    verdicts = []
    with offline_product() as product:
        for conv in conversations:
            memories = _said(product, conv["id"], conv["turns"])
            own = product.config(conv["id"])["exclude"]
            plain = [
                {"say": t.get("control", t["say"])}
                for t in conv["turns"]
                if not t.get("lookalike") and (not t.get("request") or "control" in t)
            ]
            control = _said(product, f"{conv['id']}-control", plain)
            verdicts.append(judge(conv, memories, own, control))
    return verdicts


def score(verdicts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    requests = [v for v in verdicts if v["kind"] != "not_a_request"]
    lookalikes = [v for v in verdicts if v["kind"] == "not_a_request"]
    per_kind: dict[str, dict[str, Any]] = {}
    for v in verdicts:
        row = per_kind.setdefault(v["kind"], {"conversations": 0, "honoured": 0})
        row["conversations"] += 1
        row["honoured"] += v["honoured"]
    for row in per_kind.values():
        row["share"] = round(row["honoured"] / row["conversations"], 4)
    honoured = sum(v["honoured"] for v in requests)
    return {
        "conversations": len(requests),
        "honoured": honoured,
        "honoured_share": round(honoured / len(requests), 4) if requests else None,
        "stored_against_a_request": sum(bool(v["leaked"]) for v in requests),
        "lost_other_messages": sum(bool(v["lost"]) for v in requests),
        "lookalike_conversations": len(lookalikes),
        "lookalikes_read_as_requests": sum(bool(v["own_exclude"]) for v in lookalikes),
        "lookalikes_honoured": sum(v["honoured"] for v in lookalikes),
        "untestable_messages": sum(len(v["untestable"]) for v in verdicts),
        "per_kind": per_kind,
        "not_honoured": [v for v in verdicts if not v["honoured"]],
        "meets_goal": bool(requests) and honoured / len(requests) >= GOAL,
    }


def run(path: Path = DATA, splits: Sequence[str] = SPLITS) -> dict[str, Any]:
    conversations = [c for c in load(path) if ("held_aside" if c["held_aside"] else "tuning") in splits]
    verdicts = measure(conversations)
    out: dict[str, Any] = {"data": "bench/data/safety_requests.json", "goal": {"honoured_share": GOAL}}
    for split in splits:
        out[split] = score([v for v in verdicts if v["held_aside"] == (split == "held_aside")])
    out[CARRY_OVER] = score([v for v in verdicts if v["carry_over"]])
    return out


def _print(data: dict[str, Any], show: bool) -> None:
    for split in (*SPLITS, CARRY_OVER):
        if split not in data:
            continue
        r = data[split]
        print(
            f"{split:10s} honoured {r['honoured']}/{r['conversations']} ({r['honoured_share']})  stored against a "
            f"request {r['stored_against_a_request']}  other messages lost {r['lost_other_messages']}  look-alikes "
            f"read as requests {r['lookalikes_read_as_requests']}/{r['lookalike_conversations']}  untestable "
            f"messages {r['untestable_messages']}  goal met: {r['meets_goal']}"
        )
        for kind, row in r["per_kind"].items():
            print(f"    {kind:14s} {row['honoured']}/{row['conversations']}")
    if show:  # the tuning third only
        for v in data["tuning"]["not_honoured"]:
            print("NOT HONOURED", json.dumps(v, ensure_ascii=False))


def main(argv: list[str] | None = None) -> int:
    import argparse

    from bench.report import report

    parser = argparse.ArgumentParser(prog="python -m bench.parts.safety_requests", description=__doc__.split("\n\n")[0])
    parser.add_argument("--show", action="store_true", help="print each conversation not honoured, of the tuning third")
    parser.add_argument(
        "--tuning", action="store_true", help="run the tuning conversations only (not saved: the report needs both)"
    )
    args = parser.parse_args(argv)
    data = run(splits=("tuning",) if args.tuning else SPLITS)
    if not args.tuning:
        report.save("safety_requests", data)
    _print(data, args.show)
    return 0


if __name__ == "__main__":
    sys.exit(main())
