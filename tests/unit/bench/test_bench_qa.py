"""bench/parts/qa.py and bench/parts/qa_prompts.py: the field's prompts verbatim, their answers read the field's way,
and the harness's contexts, rows and J, with a fake model (no network)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import UTC, datetime

import httpx
import openai
import pytest

from bench.parts import qa, qa_prompts
from engram.domain.models import Fact

# sha256 of the upstream strings (mem0ai/mem0 b3ede5b7, xiaowu0162/LongMemEval 9e0b455f), taken from the sources.
PUBLISHED = {
    "mem0_locomo_judge": "62395dd312a631dfd9355026a0b69cc936018274c3198b6365b5c2a5c9bca9e0",
    "mem0_locomo_answer": "95b8170c30bb86f0e6819cd4846e6e3cd24c9a82030f90dbe36c880b522b92fc",
    "longmemeval_judge_default": "fba020ba3d57982efdc9a937c1c01f897b789a608c7f88e60244121f6505e5bc",
    "longmemeval_judge_temporal": "8d33a5fdd83afeeb4592454a965eab43d1fcb2dedc042d1d3892f4254be6c273",
    "longmemeval_judge_knowledge_update": "183a9b3a6197ec620940f610cdc1207201ec98c1113dd633ea685cfc322fafac",
    "longmemeval_judge_preference": "741ee3bcbea7ff5e8ed359acef61d2f8ded3de021bbcff6ee13de455f2e2aa9b",
    "longmemeval_judge_abstention": "5c0b365a1e1d06db36377c735432b56e122ca3c428f89faf61d43a0d5a7e050b",
    "longmemeval_answer": "e427ff913456e51a132ec865b1b5038d562bdc36890976943ad421cc9b365c9d",
}


@pytest.mark.parametrize("name", sorted(PUBLISHED))
def test_prompts_are_the_published_ones_byte_for_byte(name: str) -> None:
    assert hashlib.sha256(qa_prompts.text(name).encode("utf-8")).hexdigest() == PUBLISHED[name]


def test_the_locomo_judge_is_mem0s_accuracy_prompt_filled_in() -> None:
    prompt = qa_prompts.locomo_judge("Where did I go?", "Hawaii", "You went to Hawaii last May.")
    quoted = "\u2019CORRECT\u2019 or \u2019WRONG\u2019"  # the upstream typographic quotes
    assert prompt.startswith(f"\nYour task is to label an answer to a question as {quoted}.")
    assert "Question: Where did I go?\nGold answer: Hawaii\nGenerated answer: You went to Hawaii last May." in prompt
    assert 'json format with the key as "label"' in prompt


def test_the_locomo_answer_prompt_takes_the_memories_and_the_question() -> None:
    prompt = qa_prompts.locomo_answer("- Ann: I love tea (said 8 May 2023)", "What does Ann love?")
    assert "Memories:\n\n    - Ann: I love tea (said 8 May 2023)\n\n    Question: What does Ann love?" in prompt
    assert "{{" not in prompt


@pytest.mark.parametrize(
    ("reply", "correct", "read"),
    [
        ('{"label": "CORRECT"}', True, "json"),
        ('{"label": "WRONG"}', False, "json"),
        ('```json\n{"label": "CORRECT"}\n```', True, "json"),
        ("The answer names the same city. CORRECT", True, "word"),
        ("It names another year, so WRONG.", False, "word"),
        ("CORRECT or WRONG, hard to say", False, "unreadable"),
        ("", False, "unreadable"),
    ],
)
def test_a_locomo_verdict_is_read_as_mem0_reads_it_and_a_small_models_by_its_word(
    reply: str, correct: bool, read: str
) -> None:
    assert qa_prompts.locomo_label(reply) == (correct, read)


@pytest.mark.parametrize(("reply", "correct"), [("Yes.", True), ("yes", True), ("No", False), ("no, it says", False)])
def test_a_longmemeval_verdict_is_yes_anywhere_in_the_reply(reply: str, correct: bool) -> None:
    assert qa_prompts.longmemeval_label(reply) is correct


def test_the_longmemeval_judge_template_follows_the_question_type() -> None:
    temporal = qa_prompts.longmemeval_judge("temporal-reasoning", "How many days?", "18", "19 days", False)
    assert "do not penalize off-by-one errors" in temporal
    assert "Question: How many days?\n\nCorrect Answer: 18\n\nModel Response: 19 days" in temporal
    update = qa_prompts.longmemeval_judge("knowledge-update", "q", "a", "r", False)
    assert "previous information along with an updated answer" in update
    preference = qa_prompts.longmemeval_judge("single-session-preference", "q", "rubric", "r", False)
    assert "Rubric: rubric" in preference
    abstention = qa_prompts.longmemeval_judge("multi-session", "q", "a", "r", True)
    assert "unanswerable" in abstention
    with pytest.raises(KeyError):
        qa_prompts.longmemeval_judge("no-such-type", "q", "a", "r", False)


def test_the_longmemeval_answer_prompt_carries_the_question_date_in_the_datasets_format() -> None:
    prompt = qa_prompts.longmemeval_answer("notes", datetime(2023, 5, 20, 2, 21, tzinfo=UTC), "Where?")
    assert prompt.endswith("History Chats:\n\nnotes\n\nCurrent Date: 2023/05/20 (Sat) 02:21\nQuestion: Where?\nAnswer:")


# -- the harness with a fake model --------------------------------------------------------------------


@dataclass
class FakeModel:
    """Answers from a table by a word in the prompt; as judge, says CORRECT when the generated answer
    holds the gold one (Mem0's JSON) or yes/no (LongMemEval)."""

    answers: dict[str, str]
    name: str = "fake"
    calls: list[tuple[str, str, int, bool]] = field(default_factory=list)

    def complete(self, prompt: str, *, role: str, max_tokens: int, json_object: bool = False) -> qa.Reply:
        self.calls.append((prompt, role, max_tokens, json_object))
        if prompt.startswith("\nYour task is to label"):
            gold = prompt.split("Gold answer: ")[-1].split("\n")[0]
            generated = prompt.split("Generated answer: ")[-1].split("\n")[0]
            return qa.Reply('{"label": "%s"}' % ("CORRECT" if gold in generated else "WRONG"))
        if prompt.startswith("I will give you a question, a correct answer"):
            gold = prompt.split("Correct Answer: ")[1].split("\n")[0]
            generated = prompt.split("Model Response: ")[1].split("\n")[0]
            return qa.Reply("Yes" if gold in generated else "No")
        for word, answer in self.answers.items():
            if word in prompt:
                return qa.Reply(answer, prompt_tokens=len(prompt) // 4)
        return qa.Reply("I don't know", prompt_tokens=len(prompt) // 4)


def _fact(i: int, text: str, day: int) -> Fact:
    when = datetime(2023, 5, day, 13, 56, tzinfo=UTC)
    return Fact(id=f"m{i}", tenant_id="lab", user_id="u", text=text, valid_from=when, created_at=when)


MEMORIES = (
    _fact(1, "Ann: I adopted a cat named Tom", 8),
    _fact(2, "Bob: I moved to Oslo", 9),
    _fact(3, "Ann: lovely weather today", 10),
)


def _item(dataset: str, qid: str, category: str, question: str, answer: str, evidence: set[str]) -> qa.Item:
    asked = datetime(2023, 6, 1, tzinfo=UTC) if dataset == "longmemeval" else None
    return qa.Item(dataset, qid, category, question, answer, asked, MEMORIES, frozenset(evidence), group="g")


def test_contexts_are_the_chat_proxys_block_engram_searched_oracle_the_evidence_full_everything() -> None:
    item = _item("locomo", "c#1", "4 single-hop", "What is Ann's cat called?", "Tom", {"m1"})
    searched = qa.context(item, "engram", lambda _: qa.Found([MEMORIES[2], MEMORIES[0]], 1.5), 4000)
    assert searched.text.splitlines()[2:-1] == [
        '- "Ann: lovely weather today" (said by the user, 10 May 2023)',
        '- "Ann: I adopted a cat named Tom" (said by the user, 8 May 2023)',
    ]
    assert searched.memories == 2 and searched.search_ms == 1.5
    oracle = qa.context(item, "oracle", lambda _: pytest.fail("the oracle does not search"), 4000)
    assert oracle.text.splitlines()[2:-1] == ['- "Ann: I adopted a cat named Tom" (said by the user, 8 May 2023)']
    assert oracle.search_ms is None
    full = qa.context(item, "full", lambda _: [], 4000)
    assert full.memories == 3 and "Oslo" in full.text
    assert qa.context(item, "engram", lambda _: qa.Found([], 0.1), 4000).text == ""  # nothing found: no block


def test_rows_and_j_per_dataset_context_and_category_with_the_ratio_to_the_oracle() -> None:
    items = [
        _item("locomo", "c#1", "4 single-hop", "What is Ann's cat called?", "Tom", {"m1"}),
        _item("locomo", "c#2", "1 multi-hop", "Where did Bob move?", "Oslo", {"m2"}),
        _item("longmemeval", "q1", "single-session-user", "What is my cat called?", "Tom", {"m1"}),
    ]
    # The fake answers from what the prompt holds: "named Tom" -> Tom, "Oslo" -> Oslo.
    model = FakeModel({"named Tom": "Your cat is Tom", "moved to Oslo": "He moved to Oslo"})
    engram_finds = {"c#1": [MEMORIES[0]], "c#2": [MEMORIES[2]], "q1": [MEMORIES[0]]}  # c#2: missed
    rows = list(
        qa.run_rows(
            items,
            ["engram", "oracle"],
            lambda item: qa.Found(engram_finds[item.qid], 2.0),
            model,
            model,
            budget_chars=4000,
            max_tokens=64,
        )
    )
    assert [(r["qid"], r["context"], r["correct"]) for r in rows] == [
        ("c#1", "engram", True),
        ("c#1", "oracle", True),
        ("c#2", "engram", False),
        ("c#2", "oracle", True),
        ("q1", "engram", True),
        ("q1", "oracle", True),
    ]
    answer_calls = [c for c in model.calls if not c[0].startswith(("\nYour task", "I will give you a question"))]
    # Mem0 sends its answer prompt as the system message, LongMemEval as the user's; the cap is passed.
    assert [c[1] for c in answer_calls] == ["system"] * 4 + ["user"] * 2
    assert {c[2] for c in answer_calls} == {64}
    judge_calls = [c for c in model.calls if c not in answer_calls]
    assert [c[3] for c in judge_calls] == [True] * 4 + [False] * 2  # Mem0's judge asks for a JSON object
    summary = qa.summarise(rows)
    assert summary["locomo"]["engram"]["J"] == 0.5
    assert summary["locomo"]["engram"]["by_category"] == {"1 multi-hop": 0.0, "4 single-hop": 1.0}
    assert summary["locomo"]["oracle"]["J"] == 1.0
    assert summary["locomo"]["engram_vs_oracle"] == 0.5
    assert summary["longmemeval"]["engram_vs_oracle"] == 1.0
    assert summary["engram_vs_oracle"] == round((2 / 3) / 1.0, 3)
    assert summary["locomo"]["engram"]["search_p50_ms"] == 2.0
    assert summary["locomo"]["oracle"]["search_p50_ms"] is None
    blocks = [round(len(qa.context(i, "oracle", lambda _: [], 4000).text) / 4) for i in items[:2]]
    assert summary["locomo"]["oracle"]["context_tokens_mean"] == sum(blocks) / 2


def test_rows_already_done_are_skipped() -> None:
    item = _item("locomo", "c#1", "4 single-hop", "What is Ann's cat called?", "Tom", {"m1"})
    model = FakeModel({})
    rows = list(
        qa.run_rows(
            [item],
            ["engram", "oracle"],
            lambda _: [],
            model,
            model,
            budget_chars=4000,
            max_tokens=8,
            done={("c#1", "engram")},
        )
    )
    assert [r["context"] for r in rows] == ["oracle"]


def test_a_context_the_endpoint_refuses_is_an_error_row_not_a_verdict() -> None:
    item = _item("locomo", "c#1", "4 single-hop", "What is Ann's cat called?", "Tom", {"m1"})

    class TooLong(FakeModel):
        def complete(self, prompt: str, *, role: str, max_tokens: int, json_object: bool = False) -> qa.Reply:
            request = httpx.Request("POST", "http://x/v1/chat/completions")
            raise openai.BadRequestError(
                "the request exceeds the available context size",
                response=httpx.Response(400, request=request),
                body=None,
            )

    rows = list(
        qa.run_rows([item], ["full"], lambda _: [], TooLong({}), FakeModel({}), budget_chars=4000, max_tokens=8)
    )
    assert "context size" in rows[0]["error"] and "correct" not in rows[0]
    summary = qa.summarise(rows)
    assert summary["locomo"]["full"]["errors"] == 1 and summary["locomo"]["full"]["J"] is None


def test_settings_come_from_the_environment_and_no_model_means_skip() -> None:
    assert qa.QASettings.from_env({}) is None
    assert qa.QASettings.from_env({"ENGRAM_QA_MODEL": "  "}) is None
    s = qa.QASettings.from_env({"ENGRAM_QA_MODEL": "gpt-4o-mini", "OPENAI_API_KEY": "k"})
    assert s is not None and (s.model, s.judge_model, s.base_url, s.api_key) == (
        "gpt-4o-mini",
        "gpt-4o-mini",
        None,
        "k",
    )
    local = qa.QASettings.from_env(
        {
            "ENGRAM_QA_MODEL": "qwen",
            "ENGRAM_QA_JUDGE_MODEL": "judge",
            "ENGRAM_QA_BASE_URL": "http://127.0.0.1:8765/v1",
            "ENGRAM_QA_API_KEY": "a",
            "OPENAI_API_KEY": "b",
            "ENGRAM_QA_MAX_TOKENS": "96",
        }
    )
    assert local is not None
    assert (local.judge_model, local.base_url, local.api_key, local.max_tokens) == (
        "judge",
        "http://127.0.0.1:8765/v1",
        "a",
        96,
    )


def test_main_without_a_model_says_it_skipped(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.delenv("ENGRAM_QA_MODEL", raising=False)
    assert qa.main([]) == 0
    assert capsys.readouterr().out.startswith("qa: skipped (no model configured")


def test_interleave_keeps_each_sets_order_and_mixes_them_in_proportion() -> None:
    a = [_item("locomo", f"a{i}", "4 single-hop", "q", "a", set()) for i in range(4)]
    b = [_item("longmemeval", f"b{i}", "multi-session", "q", "a", set()) for i in range(2)]
    assert [i.qid for i in qa.interleave(a, b)] == ["a0", "b0", "a1", "a2", "b1", "a3"]
    assert qa.interleave(a, []) == a


def test_the_summary_tables_show_j_side_by_side_and_the_session_figures() -> None:
    from bench.report.report_field import qa_sections, session_sections

    rows = [
        {
            "dataset": "locomo",
            "qid": "a",
            "category": "4 single-hop",
            "context": c,
            "context_tokens": 10,
            "search_ms": 1.0 if c == "engram" else None,
            "correct": ok,
        }
        for c, ok in (("engram", True), ("oracle", True))
    ]
    method = {"model": "m", "judge_model": "m", "sample": "s", "top_k": 5}
    ((title, lines),) = qa_sections({"qa": {"summary": qa.summarise(rows), "method": method}})
    assert title == "Answer accuracy (LLM judge)"
    assert any("J engram / J oracle" in line and "1.0" in line for line in lines)
    block = {
        "questions": 1,
        "turn_recall@10": 0.5,
        "session_recall@5": 1.0,
        "session_recall@10": 1.0,
        "session_all@10": 1.0,
    }
    part = {
        "references": {"locomo": "ref", "longmemeval": "ref"},
        "locomo": {"conversations": 10, "overall": block, "by_category": {"1 multi-hop": block}},
    }
    ((title, lines),) = session_sections({"session_recall": part})
    assert title == "LoCoMo distinct-session recall" and "goal 0.96" in lines[-1]
    assert qa_sections({}) == [] and session_sections({}) == []
