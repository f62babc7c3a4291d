"""What an operator tells Engram to remember: free-text instructions for the LLM, banks or topics to
include or exclude, and custom prompts. Stored per tenant (GET/PUT /v1/config); an add's own
`instructions`, `include` and `exclude` override the tenant's for that add.

An entry of `include`/`exclude` is a memory bank when it names one (Personal, Work, General,
Relationships, Health, Interests, Events; any case), else a topic: a word or phrase matched
case-insensitively as words in a fact or clause, and against fact_key families ("health", "diet"),
and by meaning (pipeline/policy_screen.py): a bank against its description, a topic against itself and
the `examples` the config gives for it (a few sentences a person would say about it). A topic may name, in
brackets after it, other words it is known by ("daughter (Isla)", "project falcon (Falcon, FLC-7)"): any of
them as a whole word is the topic too; its meaning is read from the name before the brackets."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Annotated, Any, Literal

from pydantic import ConfigDict, Field, StringConstraints, ValidationInfo, field_validator, model_validator

from engram.domain.model_base import Model

MAX_INSTRUCTIONS_CHARS = 4_000
MAX_ENTRIES = 50
MAX_ENTRY_CHARS = 100
MAX_PROMPT_CHARS = 20_000
_KNOWN_AS = re.compile(r"^(?P<name>[^()]+?)\s*\((?P<words>[^()]+)\)$")


def topic_words(entry: str) -> tuple[str, tuple[str, ...]]:
    """A topic's name and the other words it is known by: "daughter (Isla, Izzy)" -> ("daughter", ("Isla",
    "Izzy")); an entry without brackets is its own name."""
    found = _KNOWN_AS.match(entry.strip())
    if found is None:
        return entry.strip(), ()
    words = tuple(w.strip() for w in found.group("words").split(",") if w.strip())
    return found.group("name").strip(), words


Instructions = Annotated[str, Field(max_length=MAX_INSTRUCTIONS_CHARS, pattern=r"^[^\x00]*$")]
Entry = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=MAX_ENTRY_CHARS)]
Entries = Annotated[list[Entry], Field(max_length=MAX_ENTRIES)]
MAX_EXAMPLES = 10
Examples = Annotated[dict[Entry, Annotated[list[Entry], Field(max_length=MAX_EXAMPLES)]], Field(max_length=MAX_ENTRIES)]
PromptText = Annotated[str, Field(min_length=1, max_length=MAX_PROMPT_CHARS, pattern=r"^[^\x00]*$")]

# What the pipeline needs of a custom prompt, derived from the built-in prompts and the parsers:
# extraction is parsed as {"facts": [...]}, reconciliation as {"memory": [...]} with one of the four
# events per item, the graph step as {"relations": [...]}. Words match in any case, events exactly.
REQUIRED_WORDS: dict[str, tuple[str, ...]] = {
    "extraction": ("JSON", "facts"),
    "reconcile": ("JSON", "memory"),
    "graph": ("relations",),
}
REQUIRED_EXACT: dict[str, tuple[str, ...]] = {"reconcile": ("ADD", "UPDATE", "DELETE", "NONE")}


def missing_markers(name: str, text: str) -> list[str]:
    """What a custom prompt of step `name` lacks, in the order the requirement lists it."""
    lower = text.lower()
    missing = [f'"{w}"' for w in REQUIRED_WORDS.get(name, ()) if w.lower() not in lower]
    return missing + [f'"{w}"' for w in REQUIRED_EXACT.get(name, ()) if w not in text]


class Prompts(Model):
    """Custom prompts replacing the built-in ones (engram/prompts/*.txt) for the tenant's adds."""

    model_config = ConfigDict(extra="forbid")

    extraction: PromptText | None = None
    reconcile: PromptText | None = None
    graph: PromptText | None = None

    @field_validator("extraction", "reconcile", "graph")
    @classmethod
    def _has_markers(cls, value: str | None, info: ValidationInfo) -> str | None:
        name = info.field_name or ""
        missing = missing_markers(name, value) if value is not None else []
        if missing:
            raise ValueError(f"the {name} prompt must mention {', '.join(missing)} (the pipeline parses its answer)")
        return value

    @property
    def any(self) -> bool:
        return any(v is not None for v in (self.extraction, self.reconcile, self.graph))


class RedactKind(StrEnum):
    """What `redact` in a tenant's configuration can name. Credentials are redacted whatever it says."""

    EMAIL = "email"
    PHONE = "phone"
    CARD = "card"
    IBAN = "iban"
    NATIONAL_ID = "national_id"
    ADDRESS = "address"
    CREDENTIAL = "credential"


StoredInstructions = Literal["flag", "drop"]


class TenantConfig(Model):
    """A tenant's stored configuration (PUT replaces it whole)."""

    model_config = ConfigDict(extra="forbid")

    instructions: Instructions = ""
    include: Entries = Field(default_factory=list)
    exclude: Entries = Field(default_factory=list)
    examples: Examples = Field(default_factory=dict)  # a free topic's example sentences, by the topic
    prompts: Prompts = Field(default_factory=Prompts)
    # Kinds of personal data replaced by a placeholder before anything is stored; credentials always are.
    redact: list[RedactKind] = Field(default_factory=list, max_length=len(RedactKind))
    # A sentence addressed to the assistant (safety/instructions.py): kept apart as a memory of kind
    # "instruction" ("flag"), or stored nowhere ("drop"); never read as a fact about the user either way.
    stored_instructions: StoredInstructions = "flag"
    # Whether the chat proxy may put flagged instructions into a prompt (as quoted data, like every memory).
    inject_instructions: bool = False
    # Memory events on the event bus carry the memory's text only when the tenant says so (docs/events.md).
    events_include_text: bool = False

    @model_validator(mode="before")
    @classmethod
    def _without_warnings(cls, data: Any) -> Any:
        # PUT answers with `warnings` beside the config: a config read from that answer is put back as it is.
        if isinstance(data, dict) and "warnings" in data and "warnings" not in cls.model_fields:
            data = {k: v for k, v in data.items() if k != "warnings"}
        return data


class ConfigAnswer(TenantConfig):
    """PUT /v1/config's answer: the stored configuration and what of it this deployment cannot honour."""

    warnings: list[str] = Field(default_factory=list)


class Skipped(Model):
    """Something an add said that was not stored, and why ("excluded: Health", "not included"). What an
    exclusion cut is named by its size only ("a clause of 31 characters"): excluded words are kept
    nowhere, the task's result included."""

    text: str
    reason: str

    @classmethod
    def left_out(cls, what: str, text: str, reason: str) -> Skipped:
        """`what` ("clause", "fact") left out for `reason`; its words are shown only when not excluded."""
        if reason.startswith(EXCLUDED):
            return cls(text=f"a {what} of {len(text)} characters", reason=reason)
        return cls(text=text, reason=reason)


EXCLUDED = "excluded: "


class MemoryPolicy(Model):
    """What one add runs with: the tenant's configuration, with the add's own fields in its place."""

    instructions: str = ""
    include: list[str] = Field(default_factory=list)
    exclude: list[str] = Field(default_factory=list)
    examples: dict[str, list[str]] = Field(default_factory=dict)
    prompts: Prompts = Field(default_factory=Prompts)
    stored_instructions: StoredInstructions = "flag"

    @classmethod
    def of(
        cls,
        config: TenantConfig,
        instructions: str | None = None,
        include: list[str] | None = None,
        exclude: list[str] | None = None,
    ) -> MemoryPolicy:
        """An add's field given (even empty) replaces the tenant's; left out (None), the tenant's holds."""
        return cls(
            instructions=config.instructions if instructions is None else instructions,
            include=config.include if include is None else include,
            exclude=config.exclude if exclude is None else exclude,
            examples=config.examples,
            prompts=config.prompts,
            stored_instructions=config.stored_instructions,
        )

    @property
    def excluded(self) -> set[str]:
        return {t.lower() for t in self.exclude}

    @property
    def filters(self) -> bool:
        return bool(self.include or self.exclude)
