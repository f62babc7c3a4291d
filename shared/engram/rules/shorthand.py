"""Chat shorthand read as the words it stands for, before the offline rules and the aspect reader read a
message: "my gf is called ana", "wrk at renault", "moved 2 bordeaux" (issue 42).

Two steps, each one pass of one regex over the text (linear):
- a small table of abbreviations, as whole words ("gf" -> "girlfriend"; "2" -> "to" only after a
  verb of going: "moved 2 bordeaux", not "I have 2 cats");
- in a message written all in lower case, the words right after a cue that names something ("called",
  "work at", "moved to", "live in") are capitalised as the name they are ("called Ana", "work at
  Renault", "moved to Bordeaux"), up to a function word ("work at home", "moved to a new flat" stay
  as they are). The kept message is never changed; only what the readers read.
"""

from __future__ import annotations

import re

from engram.rules.vocab import NOT_NAMES
from engram.text.letters import LETTER

SHORTHAND = {
    "gf": "girlfriend",
    "bf": "boyfriend",
    "hubby": "husband",
    "wifey": "wife",
    "wrk": "work",
    "wrks": "works",
    "wrking": "working",
    "wrkd": "worked",
    "wrked": "worked",
}
_GOING = (
    r"(?:moved|move|moves|moving|relocated|relocating|went|go|goes|going|gone|headed|heading|flew|flying|fly|"
    r"came|come|coming|back|over|down|up|off)"
)
_SHORT = re.compile(
    r"(?<![\w'])(?P<w>" + "|".join(sorted(SHORTHAND, key=len, reverse=True)) + r")(?!\w)"
    rf"|\b(?P<g>{_GOING}) 2(?= {LETTER})",
    re.IGNORECASE,
)

# In lower-case text, a name follows these: a person's name, an employer, a home.
_CUE = re.compile(
    r"\b(?:called|named|name\s+is|name's"
    r"|(?:work|works|working|worked|job|started|starting|employed|hired)\s+(?:at|for|by)"
    r"|(?:moved|move|moving|relocated|relocating)\s+(?:back\s+|down\s+|up\s+|over\s+|out\s+)?(?:to|into)"
    r"|(?:live|lives|living|based|settled)\s+in)\s+",
    re.IGNORECASE,
)
_NAME_WORD = re.compile(rf"{LETTER}[\w'&-]*")
_MAX_WORDS = 3
_NOT_NAME = NOT_NAMES | frozenset(
    """
    a an the my our his her their your this that these those some any it its me us him them you myself
    ourselves home work night nights weekends weekend moment least last next week month year today tonight
    yesterday tomorrow since and but so or as for from with by of to into lol haha tho though ok okay
    january february march april may june july august september october november december monday tuesday
    wednesday thursday friday saturday sunday someone somebody something anyone nobody everyone people
    kids children clients now one two three four five several many few lots pretty
    """.split()
)


def expand(text: str) -> str:
    """The text with chat shorthand spelled out and, when it is all lower case, names after a naming
    cue capitalised."""
    expanded = _SHORT.sub(lambda m: SHORTHAND[m.group("w").lower()] if m.group("w") else f"{m.group('g')} to", text)
    if any(ch.isupper() for ch in expanded):
        return expanded
    out: list[str] = []
    at = 0
    for cue in _CUE.finditer(expanded):
        if cue.start() < at:  # inside the name capitalised after the previous cue
            continue
        out.append(expanded[at : cue.end()])
        at = cue.end()
        for _ in range(_MAX_WORDS):
            word = _NAME_WORD.match(expanded, at)
            if word is None or word.group(0).lower() in _NOT_NAME:
                break
            out.append(word.group(0)[:1].upper() + word.group(0)[1:])
            at = word.end()
            space = expanded[at : at + 1]
            if space != " ":
                break
            out.append(space)
            at += 1
    out.append(expanded[at:])
    return "".join(out)
