"""Clauses as the policy screen cuts them: each sentence at its commas, colons, dashes and coordinating
conjunctions, whatever word follows ("work's insane but the meds help" is two clauses), a piece of
fewer than MIN_WORDS words staying with its neighbour ("salt and pepper" is not cut in two): with the
one after it when "and"/"or" pairs them ("..., and born and raised in Cork": "born" belongs to Cork), else
with the one before. A
subordinate clause ("since the winter started", "because of my back") stays with the clause it says
something about: cut apart, it would be kept as saying nothing while it tells what the other said. Each
clause keeps the separator before it, so a message can be put back together without the clauses the
policy cut. Every pattern starts where its match must start (no leading `\\s*` retried along a run of
spaces), so splitting is linear in the text's length.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

_SENTENCES = re.compile(r"[^.!?;\n]*(?:[.!?;]+|\n+|$)")
_BREAK = re.compile(
    r"[,:]\s*(?:(?:and|but|or|so|plus)\s+)?"
    r"|(?<!\s)\s+(?:[-\u2013\u2014]+|and|but|so|plus|while|whereas|although|though|tho|then|or)\s+",
    re.I,
)
MIN_WORDS = 3
_PAIRING = {"and", "or"}  # bare, no comma ("born and raised", "two or three"): a short piece pairs forward


def _pieces(body: str) -> list[tuple[str, str]]:
    """(separator before, clause) pairs of one sentence, short pieces joined to a neighbour."""
    pieces: list[tuple[str, str]] = []
    start, sep = 0, ""
    for brk in _BREAK.finditer(body):
        pieces.append((sep, body[start : brk.start()]))
        start, sep = brk.end(), brk.group()
    pieces.append((sep, body[start:]))
    joined: list[tuple[str, list[str], int]] = []  # separator, the clause's parts (joined once: linear), words
    for i, (sep, clause) in enumerate(pieces):
        words = len(clause.split())
        ahead = i + 1 < len(pieces) and pieces[i + 1][0].strip().lower() in _PAIRING
        if joined and (joined[-1][2] < MIN_WORDS or (words < MIN_WORDS and not ahead)):
            joined[-1][1].extend((sep, clause))
            joined[-1] = (joined[-1][0], joined[-1][1], joined[-1][2] + words)
        else:  # a short piece paired with the next ("born and raised in Cork") starts a clause with it
            joined.append((sep, [clause], words))
    return [(sep, "".join(parts)) for sep, parts, _ in joined]


def segments(text: str) -> Iterator[tuple[str, list[tuple[str, str]]]]:
    """Each sentence as its end punctuation and its clauses, each with the separator before it."""
    for found in _SENTENCES.finditer(text):
        sentence = found.group().strip()
        if not sentence:
            continue
        body = sentence.rstrip(".!?;")
        yield sentence[len(body) :], _pieces(body)


def clauses(text: str) -> list[str]:
    """The clauses of a text, stripped, in order."""
    return [c.strip() for _, parts in segments(text) for _, c in parts if c.strip()]
