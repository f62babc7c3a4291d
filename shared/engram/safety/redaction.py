"""Personal data and secrets replaced by a typed placeholder before anything is stored ("my card is [card]").

Every pattern here is linear in the text: a bounded run of one character class anchored on a literal cue,
with no nested unbounded repetition, and every check after a match (Luhn, mod 97, a check letter) is
arithmetic on at most a few dozen characters. Phone numbers are found by `phonenumbers` (the Python port of
Google's libphonenumber): a hand pattern cannot tell a phone number from an order number or a date in the
way that library's per-country metadata does; it checks the candidates a bounded pattern finds.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache

import phonenumbers

from engram.domain.policy import RedactKind

ALWAYS = frozenset({RedactKind.CREDENTIAL})
PLACEHOLDER = {kind: f"[{kind.value.replace('_', ' ')}]" for kind in RedactKind}
# National formats are read for these countries; a number written with its "+country" prefix is read for any.
PHONE_REGIONS = ("US", "GB", "DE", "FR", "ES", "IT", "NL", "IN", "AU", "BR")


@dataclass(frozen=True)
class Span:
    start: int
    end: int
    kind: RedactKind


@dataclass
class Redaction:
    """The text with each span found replaced by its placeholder, and how many of each kind were."""

    text: str
    found: Counter[RedactKind] = field(default_factory=Counter)

    @property
    def count(self) -> int:
        return sum(self.found.values())


_EMAIL = re.compile(r"[\w.+-]{1,64}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}")
# 13 to 19 digits, single spaces or dashes between groups; the Luhn check decides.
_CARD = re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])")
_IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}\b")
_SSN = re.compile(r"(?<![\d-])(?!000|666|9\d\d)\d{3}-(?!00)\d{2}-(?!0000)\d{4}(?![\d-])")
# Without dashes, nine digits are an SSN only right after a word that says so ("ssn 512348821").
_SSN_SAID = re.compile(
    r"\b(?:ssn|social security(?: number)?|social)(?: is| was|:|#)? ?"
    r"(?P<value>(?!000|666|9\d\d)\d{3}(?P<sep> ?)(?!00)\d{2}(?P=sep)(?!0000)\d{4})(?![\d-])",
    re.IGNORECASE,
)
# An address written to dodge a filter: "lucy [at] lucyart [dot] net", "sam (at) proton (dot) me".
_EMAIL_SPELLED = re.compile(
    r"[\w.+-]{1,64} ?[\[(]at[\])] ?[\w-]{1,63}(?: ?[\[(]dot[\])] ?[\w-]{1,63}){1,8}", re.IGNORECASE
)
_NINO = re.compile(r"\b(?!BG|GB|NK|KN|TN|NT|ZZ)[A-CEGHJ-PR-TW-Z][A-CEGHJ-NPR-TW-Z] ?\d{2} ?\d{2} ?\d{2} ?[A-D]\b")
_DNI = re.compile(r"\b([XYZ]?)(\d{7,8})-?([A-Z])\b")
_NIR = re.compile(r"\b([12]) ?(\d{2}) ?(\d{2}) ?(\d{2}|2A|2B) ?(\d{3}) ?(\d{3}) ?(\d{2})\b")
_CODICE_FISCALE = re.compile(r"\b[A-Z]{6}\d{2}[A-EHLMPR-T]\d{2}[A-Z]\d{3}[A-Z]\b")
_STREET_WORDS = (
    "street|st|road|rd|avenue|ave|lane|ln|boulevard|blvd|drive|dr|way|court|ct|place|pl|terrace|close|crescent"
)
_ADDRESS_EN = re.compile(rf"\b\d{{1,5}}[a-zA-Z]?,? (?:[\w'.-]{{1,30}} ){{0,4}}(?:{_STREET_WORDS})\b\.?", re.IGNORECASE)
_ADDRESS_FR = re.compile(
    r"\b\d{1,5}(?: ?bis| ?ter)?,? (?:rue|avenue|boulevard|bd|chemin|allée|place|impasse|quai|cours)"
    r"(?: [\w'-]{1,30}){1,5}",
    re.IGNORECASE,
)
# "Hauptstraße 5", "Am Marktplatz 7", "Berliner Allee 44": the street word joined to the name or a word of its own.
_ADDRESS_DE = re.compile(
    r"\b(?:(?:Am|An der|Auf der|Im|In der|Unter den|Zum|Zur) )?"
    r"(?:[\w-]{2,40}(?:straße|strasse|str\.|weg|allee|gasse|platz|ring|damm)"
    r"|[A-ZÄÖÜ][\w-]{1,40} (?:Straße|Strasse|Str\.|Weg|Allee|Gasse|Platz|Ring|Damm)) \d{1,5}[a-z]?\b"
)
_SECRET_TOKEN = re.compile(
    r"\b(?:sk-(?:proj-|ant-)?[\w-]{20,200}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{30,200}"
    r"|github_pat_\w{30,200}"
    r"|xox[abprs]-[\w-]{10,200}"
    r"|AIza[\w-]{35}"
    r"|glpat-[\w-]{20}"
    r"|eyJ[\w-]{8,2000}\.eyJ[\w-]{8,2000}\.[\w-]{8,2000})"
)
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[^-]{0,10000}-----END [A-Z ]{0,40}PRIVATE KEY-----")
# A secret said as such: "my password is hunter2", "api key: abc123", "le mot de passe est ...". The value
# is the one word after the cue (and its verb or colon), which is what is replaced.
_SAID_SECRET = re.compile(
    r"\b(?:password|passwd|passcode|passphrase|pwd|pin(?: code)?|api[ _-]?key|access[ _-]?key|secret key"
    r"|auth token|access token|token|mot de passe|passwort|kennwort|contraseña|senha|parola d'ordine)"
    r"(?: for(?: [\w.-]{1,40}){1,3})?"
    r"(?: is| was| est| ist| es| é| è|'s| ?:| =|=)(?: now)?:? ?(?P<value>[^\s\"']{3,200})",
    re.IGNORECASE,
)
_NOT_A_SECRET = frozenset({"the", "a", "my", "your", "that", "this", "too", "very", "so", "not", "wrong", "correct"})


def _luhn(digits: str) -> bool:
    total = 0
    for i, char in enumerate(reversed(digits)):
        d = int(char)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _iban_valid(text: str) -> bool:
    compact = text.replace(" ", "")
    if not 15 <= len(compact) <= 34:
        return False
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


# Issuers print a number in fours (the last group may be shorter), or 4-6-5 (15 digits) and 4-6-4 (14): digits
# grouped otherwise are an order or reference number that passes Luhn by chance (1 number in 10 does).
_CARD_LAYOUTS = ((4, 6, 5), (4, 6, 4))


def _grouped_as_a_card(raw: str) -> bool:
    groups = tuple(len(g) for g in re.split(r"[ -]", raw))
    return len(groups) == 1 or groups in _CARD_LAYOUTS or (set(groups[:-1]) == {4} and groups[-1] <= 4)


def _cards(text: str) -> Iterator[Span]:
    for m in _CARD.finditer(text):
        digits = re.sub(r"[ -]", "", m.group())
        if 13 <= len(digits) <= 19 and _luhn(digits) and len(set(digits)) > 1 and _grouped_as_a_card(m.group()):
            yield Span(m.start(), m.end(), RedactKind.CARD)


def _ibans(text: str) -> Iterator[Span]:
    for m in _IBAN.finditer(text):
        # The match may run on into the next word of capitals and digits: take the longest valid prefix.
        raw = m.group()
        for end in range(len(raw), 14, -1):
            if raw[end - 1] != " " and _iban_valid(raw[:end]):
                yield Span(m.start(), m.start() + end, RedactKind.IBAN)
                break


_DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def _national_ids(text: str) -> Iterator[Span]:
    for m in _SSN.finditer(text):
        yield Span(m.start(), m.end(), RedactKind.NATIONAL_ID)
    for m in _SSN_SAID.finditer(text):
        yield Span(m.start("value"), m.end("value"), RedactKind.NATIONAL_ID)
    for m in _NINO.finditer(text):
        yield Span(m.start(), m.end(), RedactKind.NATIONAL_ID)
    for m in _DNI.finditer(text):
        prefix, number, letter = m.groups()
        value = int(str("XYZ".index(prefix)) + number if prefix else number)
        if (prefix or len(number) == 8) and _DNI_LETTERS[value % 23] == letter:
            yield Span(m.start(), m.end(), RedactKind.NATIONAL_ID)
    for m in _NIR.finditer(text):
        body = "".join(m.groups()[:-1]).replace("2A", "19").replace("2B", "18")
        if 97 - int(body) % 97 == int(m.group(7)):
            yield Span(m.start(), m.end(), RedactKind.NATIONAL_ID)
    for m in _CODICE_FISCALE.finditer(text):
        yield Span(m.start(), m.end(), RedactKind.NATIONAL_ID)


_PHONE_CUE = re.compile(
    r"\b(?:phone|call|ring|text|tel|mobile|cell|whatsapp|signal|fax|portable|téléphone|handy|telefon"
    r"|teléfono|móvil|celular|telefone|cellulare)",
    re.IGNORECASE,
)
# "number" alone is said of order, lottery and membership numbers too: after it, digits in groups count only
# when grouped as that country writes its phone numbers.
_NUMBER_CUE = re.compile(r"\b(?:number|numéro|nummer|número)\b", re.IGNORECASE)


def _looks_dialled(text: str, start: int, raw: str, numbers: tuple[phonenumbers.PhoneNumber, ...]) -> bool:
    """A run of digits is an order, ticket or reference number as often as a phone number: it counts only
    when said as one ("call me on", "my mobile"), written with an international prefix, in groups as that
    country writes its numbers ("020 7946 0958" yes; "4477-2291" or "8 336 817", valid German numbers
    grouped otherwise, no), or in one run after "number"."""
    if text[max(0, start - 1) : start] == "#":
        return False
    if raw.startswith(("+", "00")) or _PHONE_CUE.search(text, max(0, start - 40), start) is not None:
        return True
    groups = _digit_groups(raw)
    if len(groups) == 1:
        return _NUMBER_CUE.search(text, max(0, start - 40), start) is not None
    return any(
        groups == _digit_groups(phonenumbers.format_number(number, style))
        for number in numbers
        for style in (phonenumbers.PhoneNumberFormat.NATIONAL, phonenumbers.PhoneNumberFormat.INTERNATIONAL)
    )


def _digit_groups(text: str) -> list[int]:
    return [len(g) for g in _DIGITS.findall(text.replace("(0)", ""))]


_DIGITS = re.compile(r"\d+")


# A candidate: digits in groups of up to five with single separators, an optional "+" or "(area)" first;
# bounded, so the scan is linear. libphonenumber then decides whether it is a number of some country.
_PHONE_CANDIDATE = re.compile(r"(?<![\w+#])(?:\+|00)?\(?\d{1,5}\)?(?:[ .\-/]?\(?\d{1,5}\)?){1,7}(?![\w])")


# Dates and times are written with the same digits and separators as phone numbers.
_DATE_LIKE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d{1,2}[:h]\d{2}")


@lru_cache(maxsize=4096)
def _phone_numbers(raw: str) -> tuple[phonenumbers.PhoneNumber, ...]:
    """The readings of `raw` libphonenumber calls valid numbers (one a region it may be read in)."""
    if _DATE_LIKE.fullmatch(raw):
        return ()
    digits = sum(c.isdigit() for c in raw)
    if not 7 <= digits <= 15:
        return ()
    regions: tuple[str | None, ...] = (None,) if raw.startswith("+") else PHONE_REGIONS
    number = "+" + raw[2:] if raw.startswith("00") else raw
    valid = []
    for region in regions:
        try:
            parsed = phonenumbers.parse(number, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(parsed):
            valid.append(parsed)
    return tuple(valid)


def _phones(text: str) -> Iterator[Span]:
    for m in _PHONE_CANDIDATE.finditer(text):
        raw = m.group().rstrip(" .-/")
        numbers = _phone_numbers(raw)
        if numbers and _looks_dialled(text, m.start(), raw, numbers):
            yield Span(m.start(), m.start() + len(raw), RedactKind.PHONE)


def _addresses(text: str) -> Iterator[Span]:
    # Longest first: "25 boulevard Haussmann" is read by the French pattern whole and by the English one as
    # "25 boulevard"; the span taken first wins an overlap.
    spans = [
        Span(m.start(), m.end(), RedactKind.ADDRESS)
        for p in (_ADDRESS_EN, _ADDRESS_FR, _ADDRESS_DE)
        for m in p.finditer(text)
    ]
    yield from sorted(spans, key=lambda s: s.start - s.end)


def _credentials(text: str) -> Iterator[Span]:
    for pattern in (_SECRET_TOKEN, _PRIVATE_KEY):
        for m in pattern.finditer(text):
            yield Span(m.start(), m.end(), RedactKind.CREDENTIAL)
    for m in _SAID_SECRET.finditer(text):
        value = m.group("value").rstrip(".,;!?)")
        if value and value.lower() not in _NOT_A_SECRET:
            yield Span(m.start("value"), m.start("value") + len(value), RedactKind.CREDENTIAL)


def _emails(text: str) -> Iterator[Span]:
    if "@" in text:
        for m in _EMAIL.finditer(text):
            yield Span(m.start(), m.end(), RedactKind.EMAIL)
    for m in _EMAIL_SPELLED.finditer(text):
        yield Span(m.start(), m.end(), RedactKind.EMAIL)


# In this order: a span found earlier wins an overlap (a card number is not also read as a phone number; an
# identifier that passes its own check, 1 in 97 for a NIR's key, is not a card that passes Luhn, 1 in 10).
_FINDERS: tuple[tuple[RedactKind, Callable[[str], Iterable[Span]]], ...] = (
    (RedactKind.CREDENTIAL, _credentials),
    (RedactKind.EMAIL, _emails),
    (RedactKind.IBAN, _ibans),
    (RedactKind.NATIONAL_ID, _national_ids),
    (RedactKind.CARD, _cards),
    (RedactKind.PHONE, _phones),
    (RedactKind.ADDRESS, _addresses),
)


def find(text: str, kinds: Iterable[RedactKind] = ()) -> list[Span]:
    """The spans of `kinds` (and of credentials, always) in `text`, without overlaps, in order."""
    wanted = ALWAYS | frozenset(kinds)
    taken: list[Span] = []
    for kind, finder in _FINDERS:
        if kind not in wanted:
            continue
        for span in finder(text):
            if not any(span.start < t.end and t.start < span.end for t in taken):
                taken.append(span)
    return sorted(taken, key=lambda s: s.start)


def redact(text: str, kinds: Iterable[RedactKind] = ()) -> Redaction:
    """`text` with each span of `kinds` (credentials always) replaced by its placeholder."""
    spans = find(text, kinds)
    if not spans:
        return Redaction(text)
    parts: list[str] = []
    at = 0
    for span in spans:
        parts += [text[at : span.start], PLACEHOLDER[span.kind]]
        at = span.end
    parts.append(text[at:])
    return Redaction("".join(parts), Counter(s.kind for s in spans))
