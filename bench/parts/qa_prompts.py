"""The field's answer and judge prompts, and how their answers are read (pure: tests/unit/bench/test_bench_qa.py).

The prompt texts are kept verbatim in bench/data/qa_prompts/ (sources, commits and licences in its
README): Mem0's LoCoMo judge (`ACCURACY_PROMPT`, the one Mem0 and Zep report J with) and answer prompt,
LongMemEval's own judge prompts (one per question type, and one for abstention) and answer template.
"""

from __future__ import annotations

import json
import re
from datetime import datetime
from functools import cache
from pathlib import Path

PROMPTS = Path(__file__).resolve().parents[1] / "data" / "qa_prompts"
_FENCED = re.compile(r"```(?:json)?\s*(.*?)\s*```", re.DOTALL)
_LABEL = re.compile(r"\b(CORRECT|WRONG)\b")


@cache
def text(name: str) -> str:
    return (PROMPTS / f"{name}.txt").read_text(encoding="utf-8")


def locomo_answer(memories: str, question: str) -> str:
    """Mem0's answer prompt (upstream a Jinja template with these two variables)."""
    return text("mem0_locomo_answer").replace("{{memories}}", memories).replace("{{question}}", question)


def locomo_judge(question: str, gold: str, generated: str) -> str:
    return text("mem0_locomo_judge").format(question=question, gold_answer=gold, generated_answer=generated)


def locomo_label(reply: str) -> tuple[bool, str]:
    """(correct, how it was read). Upstream: json.loads(extract_json(reply))["label"] == "CORRECT",
    extract_json taking a ```json fenced block when there is one. A reply that is not such JSON (a
    small model's) is read by its label word when exactly one of CORRECT / WRONG appears, else WRONG."""
    found = _FENCED.search(reply.strip())
    body = found.group(1) if found else reply.strip()
    try:
        data = json.loads(body)
    except json.JSONDecodeError:
        data = None
    if isinstance(data, dict) and isinstance(data.get("label"), str):
        return data["label"] == "CORRECT", "json"
    words = set(_LABEL.findall(reply))
    if len(words) == 1:
        return words == {"CORRECT"}, "word"
    return False, "unreadable"


def longmemeval_answer(history: str, asked_at: datetime, question: str) -> str:
    return text("longmemeval_answer").format(history, longmemeval_date(asked_at), question)


def longmemeval_date(when: datetime) -> str:
    """The dataset's own date format, "2023/05/20 (Sat) 02:21"."""
    return f"{when:%Y/%m/%d (%a) %H:%M}"


_JUDGES = {
    "single-session-user": "longmemeval_judge_default",
    "single-session-assistant": "longmemeval_judge_default",
    "multi-session": "longmemeval_judge_default",
    "temporal-reasoning": "longmemeval_judge_temporal",
    "knowledge-update": "longmemeval_judge_knowledge_update",
    "single-session-preference": "longmemeval_judge_preference",
}


def longmemeval_judge(question_type: str, question: str, answer: str, response: str, abstention: bool) -> str:
    """LongMemEval's get_anscheck_prompt: the template of the question's type, or abstention's."""
    name = "longmemeval_judge_abstention" if abstention else _JUDGES[question_type]
    return text(name).format(question, answer, response)


def longmemeval_label(reply: str) -> bool:
    """Upstream: `'yes' in eval_response.lower()`."""
    return "yes" in reply.strip().lower()
