"""The `make` commands the docs give exist: every `make X` that README.md, docs/*.md or bench/README.md names
is a rule of the Makefile, and every .PHONY target has a rule that does something (a recipe or prerequisites).
A target that is only declared, like `make sam-check` once was, answers "Nothing to be done" and fails here."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
RULE = re.compile(r"^([\w.$()/-]+(?: [\w.$()/-]+)*)\s*:(?!=)(.*)$")
# `make run`, `ENGRAM_LLM=local make run`, `make deploy SAM_ENV=prod`: the target is the word after `make`.
COMMAND = re.compile(r"(?:^|[`\s;&(])make ([a-z][\w-]*)")
INLINE_CODE = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.DOTALL | re.MULTILINE)


def rules(makefile: str) -> dict[str, bool]:
    """target -> whether its rule does something (recipe lines or prerequisites)."""
    found: dict[str, bool] = {}
    lines = makefile.splitlines()
    for i, line in enumerate(lines):
        match = RULE.match(line)
        if not match or line.startswith("\t") or match.group(1) == ".PHONY":
            continue
        recipe = i + 1 < len(lines) and lines[i + 1].startswith("\t")
        for target in match.group(1).split():
            found[target] = found.get(target, False) or recipe or bool(match.group(2).strip())
    return found


def phony(makefile: str) -> set[str]:
    return {t for line in makefile.splitlines() if line.startswith(".PHONY:") for t in line.split(":", 1)[1].split()}


def commands(markdown: str) -> set[str]:
    """The make targets named in code: inline code spans and fenced blocks (prose "make sure" is not one)."""
    code = [*INLINE_CODE.findall(FENCE.sub("", markdown)), *FENCE.findall(markdown)]
    return {target for span in code for target in COMMAND.findall(span)}


def documents() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]


def test_every_make_command_the_docs_give_is_a_rule_of_the_makefile() -> None:
    defined = rules((ROOT / "Makefile").read_text(encoding="utf-8"))
    missing = [
        f"{doc.relative_to(ROOT)}: make {target}"
        for doc in documents()
        for target in sorted(commands(doc.read_text(encoding="utf-8")))
        if not defined.get(target)
    ]
    assert not missing, "\n".join(missing)


def test_every_phony_target_has_a_rule_that_does_something() -> None:
    makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
    defined = rules(makefile)
    assert sorted(t for t in phony(makefile) if not defined.get(t)) == []


def test_the_readme_deploys_and_checks_through_make() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert {"run", "test", "sam-check", "deploy"} <= commands(readme)
    # the SAM CLI comes from `make deploy` / `make sam-check`, not from a venv only `make test` builds
    assert ".venv-sam/bin/sam" not in readme


def test_the_parsers_read_rules_and_commands_as_make_and_a_reader_do() -> None:
    makefile = ".PHONY: a b c d\na: x\nb:\n\techo b\nc:\nd := 1\n$(STAMP): pyproject.toml\n\ttouch $@\n"
    assert rules(makefile) == {"a": True, "b": True, "c": False, "$(STAMP)": True}
    assert phony(makefile) == {"a", "b", "c", "d"}
    text = (
        "Run `ENGRAM_LLM=local make run`, then make sure.\n```bash\nmake deploy SAM_ENV=prod  # or make sam-check\n```"
    )
    assert commands(text) == {"run", "deploy", "sam-check"}
