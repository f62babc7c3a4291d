"""Letters of any script, for the patterns that read names ("Chloé", "Łukasz", "Ayşe", "Дарья", "美咲").

`[A-Z]` cuts a name at its first letter outside ASCII ("Chloé" read as "Chlo"), so no pattern on user
text spells a script. Python's `re` has no class for capitals; CAPITAL is a letter that is not lower
case: a capital of a script with case, or any letter of a script without case (Japanese, Chinese,
Arabic, ...), where a name cannot be told by its first letter. Case-sensitive even inside a pattern
compiled with IGNORECASE, so "in łódź" is no name in a text that capitalises.
"""

from __future__ import annotations

import re

LETTER = r"[^\W\d_]"
_WORD_CHARACTER = re.compile(r"[^\W_]")


def has_words(text: str) -> bool:
    """Whether a text says anything: a letter or digit of any script. A model that copies its answer's
    shape writes "..." as a fact; nothing stored may be only dots, dashes or question marks."""
    return _WORD_CHARACTER.search(text) is not None


def _lower_class() -> str:
    """A class of the lower-case letters of the Basic Multilingual Plane (every living script's), as ranges."""
    ranges: list[tuple[int, int]] = []
    for code in range(0x10000):
        if chr(code).islower():
            if ranges and ranges[-1][1] == code - 1:
                ranges[-1] = (ranges[-1][0], code)
            else:
                ranges.append((code, code))
    return "".join(re.escape(chr(a)) + ("-" + re.escape(chr(b)) if b > a else "") for a, b in ranges)


LOWER = f"[{_lower_class()}]"
CAPITAL = rf"(?-i:(?!{LOWER}){LETTER})"


def is_capital(word: str) -> bool:
    """Whether a word starts as a name does (see CAPITAL)."""
    return word[:1].isalpha() and not word[:1].islower()
