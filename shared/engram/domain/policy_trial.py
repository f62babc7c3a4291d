"""Trying a sentence against a memory policy (POST /v1/config/policy/test): what the include/exclude
screen would do with each of its clauses, and how near each clause is to the banks and topics, without
storing anything. An operator uses it to see whether a free topic and its examples catch what they mean
and spare what they do not."""

from __future__ import annotations

from typing import Literal

from pydantic import ConfigDict, Field

from engram.domain.limits import MAX_QUERY_CHARS, ScopeId
from engram.domain.model_base import Model
from engram.domain.policy import Entries, Examples

Decision = Literal["kept", "excluded", "not included"]


class TrialPolicy(Model):
    """A policy to try instead of the stored one (the same fields and limits as the configuration's)."""

    model_config = ConfigDict(extra="forbid")

    include: Entries = Field(default_factory=list)
    exclude: Entries = Field(default_factory=list)
    examples: Examples = Field(default_factory=dict)


class PolicyTrial(Model):
    model_config = ConfigDict(extra="forbid")

    text: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, pattern=r"^[^\x00]*$")
    # With user_id (and no `policy`): the tenant's policy plus what that user asked not to be remembered.
    user_id: ScopeId | None = None
    policy: TrialPolicy | None = None  # tried instead of the stored policy (the user's own then does not apply)


class EntryScore(Model):
    """One include/exclude entry read against a clause."""

    entry: str
    kind: Literal["bank", "topic"]
    score: float | None  # best cosine to the entry's statements (None: meaning is off)
    # how far the clause reads from its nearest bank (a bank: its reading minus the nearest bank's reading,
    # as it is decided against its margin; a catalogue topic: its reading minus the nearest bank's reading, the
    # same way; another topic: its score minus the nearest bank's best cosine)
    margin: float | None
    matches: bool  # the screen reads the clause as about this entry (meaning, words or rules)


class ClauseVerdict(Model):
    text: str
    decision: Decision
    reason: str | None = None  # "excluded: Health", "not included"
    nearest: str | None = None  # the bank or topic the clause is closest to (None: meaning is off)
    nearest_score: float | None = None
    entries: list[EntryScore] = Field(default_factory=list)


class PolicyTrialAnswer(Model):
    include: list[str]
    exclude: list[str]
    by_meaning: bool  # False: the local embedder is off, only words and rules decide
    stored: str  # the text as the screen would pass it on ("" when nothing is left)
    clauses: list[ClauseVerdict]
