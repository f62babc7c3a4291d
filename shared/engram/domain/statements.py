"""What a memory says: its statements. One model for every memory (a fact, a message kept as said, a part, an
import, a PATCH), so that the memory state is resolved the same way whatever path a memory came by
(state/: the readers, the catalogue and the resolver; docs/memory-state.md).

A statement gives a value of an attribute of a subject, with a polarity and, where it was said, the time it
became so. The attribute is canonical by meaning (the catalogue's name, or the user's own attribute it matched:
"phone", "mobile" and "handset" are one attribute), and says whether it holds one value at a time."""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import Field

from engram.domain.model_base import Model

# asserted: holds from now on; ended: no longer holds ("gave the bike away"); denied: never held ("I don't
# have a car"); hedged: may hold ("might move to Lyon"); past: held once, says nothing of now ("lived in Rome
# as a kid").
Polarity = Literal["asserted", "ended", "denied", "hedged", "past"]
USER = "user"  # the subject of what a person says of themselves


class Statement(Model):
    subject: str = USER  # "user", or someone or something named: "my daughter Ines", "the Leeds office"
    attribute: str = Field(min_length=1, max_length=120)  # canonical by meaning: "home", "phone", "gym"
    value: str = Field(min_length=1, max_length=300)  # a whole name: "Soins Alpins", never its first word
    polarity: Polarity = "asserted"
    single: bool = False  # one value at a time; unknown attributes gather values (keep rather than outdate)
    event_time: datetime | None = None  # when it became so, when said ("in May"); else the memory's valid_from
    outdated_by: str | None = None  # the memory whose later statement replaced or ended this one

    @property
    def changes_state(self) -> bool:
        """Whether it may outdate an older statement: a value now held, or one ended."""
        return self.polarity in ("asserted", "ended", "denied")


# How a person, or a model speaking for them, names the person as a subject.
_THE_PERSON = frozenset({USER, "i", "me", "myself", "the user", "we", "us"})


def plain_words(text: str) -> str:
    """A subject or attribute as compared: casefolded, underscores as spaces, one space between words."""
    return " ".join(text.casefold().replace("_", " ").split())


def of_the_person(subject: str) -> bool:
    """Whether a statement's subject is the person ("user", "I", "we", or none given), not someone else."""
    plain = plain_words(subject)
    return not plain or plain in _THE_PERSON


def same_subject(a: str, b: str) -> bool:
    """Whether two subjects are one: by the name in each where both have one ("my daughter Isla", "Isla" and
    "Isla's" are one; "my sister Ana" and "my sister Eva" two), else by their words ("my sister", "he")."""
    return _who(a) == _who(b)


def _who(subject: str) -> str:
    words = subject.replace("\u2019", "'").split()
    named = [w.removesuffix("'s") for w in words[1:] if w[:1].isupper()] if len(words) > 1 else []
    if words and words[0][:1].isupper() and words[0].lower() not in ("my", "our", "the"):
        named = [w.removesuffix("'s") for w in words if w[:1].isupper()]
    return " ".join(named or words).casefold()
