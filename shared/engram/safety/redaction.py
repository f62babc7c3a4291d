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
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

import phonenumbers

from engram.domain.policy import RedactKind

ALWAYS = frozenset({RedactKind.CREDENTIAL})
PLACEHOLDER = {kind: f"[{kind.value.replace('_', ' ')}]" for kind in RedactKind}
# National formats are read for these countries; a number written with its "+country" prefix is read for any,
# and so is one said as a phone number ("call me on", "my mobile", "мой номер"): then every region
# libphonenumber knows is tried.
PHONE_REGIONS = ("US", "GB", "DE", "FR", "ES", "IT", "NL", "IN", "AU", "BR")
ALL_REGIONS = tuple(sorted(phonenumbers.SUPPORTED_REGIONS))


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


# The local part may hold an apostrophe ("o'connor.finn@..."), not as its first character (a quote before it).
_EMAIL = re.compile(r"\w[\w.+'-]{0,63}@[\w-]{1,63}(?:\.[\w-]{1,63}){1,8}")
# 13 to 19 digits, up to two spaces, dots or dashes between groups; the Luhn check and the grouping decide.
_CARD = re.compile(r"(?<![\d.-])\d(?:[ .-]{0,2}\d){12,18}(?![\d-]|\.\d)")
# Upper or lower case, not mixed: "DE89 3704 ..." or "no44 9943 ..." as a banking app shows it.
_IBAN = re.compile(r"\b(?:[A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30}|[a-z]{2}\d{2}(?: ?[a-z0-9]){11,30})\b")
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
# ... and with words: "jane dot doe at gmail dot com" (a domain needs at least one "dot").
_EMAIL_WORDS = re.compile(
    r"\b[\w+-]{1,64}(?: dot [\w+-]{1,64}){0,3} at [\w-]{1,63}(?: dot [\w-]{1,63}){0,3} dot [a-z]{2,24}\b",
    re.IGNORECASE,
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
# Keys and tokens by the prefixes their providers publish (so that leaked keys can be scanned for): OpenAI and
# Anthropic, AWS, GitHub, Slack (tokens and webhook URLs), Google, GitLab, Stripe, SendGrid, Hugging Face,
# npm, PyPI, DigitalOcean, Shopify, Twilio, Mailgun, Groq, Replicate, Notion, Linear, Postman, Figma, Sentry,
# Databricks, Telegram bots; JWTs.
_SECRET_TOKEN = re.compile(
    r"\b(?:sk-(?:proj-|ant-)?[\w-]{20,200}"
    r"|(?:AKIA|ASIA)[0-9A-Z]{16}"
    r"|gh[pousr]_[A-Za-z0-9]{30,200}"
    r"|github_pat_\w{30,200}"
    r"|xox[abprs]-[\w-]{10,200}|xapp-[\w-]{10,200}"
    r"|AIza[\w-]{35}|ya29\.[\w-]{20,2000}"
    r"|gl(?:pat|dt|rt|ptt)-[\w-]{20,200}"
    r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,200}|whsec_[A-Za-z0-9]{20,200}"
    r"|SG\.[\w-]{16,64}\.[\w-]{16,128}"
    r"|hf_[A-Za-z0-9]{30,200}|npm_[A-Za-z0-9]{30,200}|pypi-AgE[\w-]{20,500}"
    r"|do[por]_v1_[a-f0-9]{64}|shp(?:at|ss|ca|pa)_[a-fA-F0-9]{32}"
    r"|SK[0-9a-f]{32}|key-[0-9a-f]{32}|gsk_[A-Za-z0-9]{20,200}|r8_[A-Za-z0-9]{30,200}"
    r"|(?:secret|ntn)_[A-Za-z0-9]{40,200}|lin_api_[A-Za-z0-9]{30,200}|PMAK-[a-f0-9]{24}-[a-f0-9]{34}"
    r"|figd_[\w-]{30,200}|sntry[su]_[\w=+/-]{30,500}|dapi[a-f0-9]{32}"
    r"|\d{8,10}:AA[\w-]{33}"
    r"|eyJ[\w-]{8,2000}\.eyJ[\w-]{8,2000}\.[\w-]{8,2000})"
    r"|https://hooks\.slack\.com/(?:services|workflows|triggers)/[\w/-]{20,300}"
    r"|https://discord(?:app)?\.com/api/webhooks/\d{5,30}/[\w-]{20,200}"
)
_PRIVATE_KEY = re.compile(r"-----BEGIN [A-Z ]{0,40}PRIVATE KEY-----[^-]{0,10000}-----END [A-Z ]{0,40}PRIVATE KEY-----")
# Secrets in configuration as people paste it: "DB_PASSWORD=...", "export AWS_SECRET_ACCESS_KEY=...", the
# password of a URL ("postgres://app:S3cr3t@db/prod"), an "Authorization: Bearer ..." header.
_ENV_SECRET = re.compile(
    r"\b(?:(?:[A-Z0-9_]{0,40}_)?(?:PASSWORD|PASSWD|PWD|SECRET|TOKEN|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)"
    r"|[A-Z0-9_]{0,40}_(?:PASS|AUTH))(?:_[A-Z0-9_]{0,20})? ?[=:] ?[\"']?(?P<value>[^\s\"']{3,500})"
)
_URL_PASSWORD = re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@]{1,64}:(?P<value>[^\s@/]{1,200})@")
_BEARER = re.compile(r"\b(?:bearer|authorization: basic|token) (?P<value>[\w.~+/-]{16,2000}=*)", re.IGNORECASE)
# A secret said as such: "my password is hunter2", "api key: abc123", "le mot de passe est ...", "the wifi
# pass is ...", "use hunter2 as the password". The value is the one word after the cue, its qualifier ("for
# the router", "del wifi", "number") and its verb or mark ("is", "'s", ":", "=", "-", "lautet", "c'est",
# "? it's"), which is what is replaced. Cues that name a secret (password, PIN, API key, ...) take any word
# that is not prose; cues that may name other things (a "code", a "pass", a "secret") take only a value
# that looks made to be a secret (see _secret_like).
_SECRET_NOUNS = (
    r"password|passwd|passcode|passphrase|pwd|pw|pin(?: code| number)?|api[ _-]?key|access[ _-]?key|secret key"  # noqa: S105
    r"|client secret|auth token|access token|bearer token|refresh token|token|mot de passe|passwort|kennwort"
    r"|contraseña|clave|senha|parola d'ordine|пароль|密码|パスワード|비밀번호|şifre\w{0,3}"
)
_WEAK_NOUNS = (
    r"(?:wi-?fi |wlan )?pass|secret|(?:door|alarm|gate|safe|lock|unlock|security|recovery|backup|verification"
    r"|one-time|2fa|wi-?fi|pin|sim|puk|access) code|code(?: wi-?fi| pin| secret)"
    r"|code (?:to|for) (?:my|the|our) \w{1,20}"
)
_QUALIFIER = (
    r"(?: (?:for|to|of|on|del|de la|de|du|des|für|für das|für den|vom|do|da|della|per|para)(?: [\w.-]{1,40}){1,3})?"
)
_CONNECTOR = r"(?: is| was| est| ist| es| é| è| lautet|'s| c'est| it's| it is|\?(?: it's| it is)?| ?:| =|=| -| —)"
_SAID_SECRET = re.compile(
    rf"\b(?:(?P<strong>{_SECRET_NOUNS})|(?P<weak>{_WEAK_NOUNS})){_QUALIFIER}{_CONNECTOR}(?: now| set to)?:? ?"
    r"[\"'\u201c\u2018«]?(?P<value>[^\s\"'\u201d\u2019»]{3,200})",
    re.IGNORECASE,
)
# With no verb or mark ("login is sam, pass Hello1234"), only a value of letters and digits right after.
_UNSAID_SECRET = re.compile(
    rf"\b(?:{_SECRET_NOUNS}|pass) (?=[^\s]{{0,200}}\d)(?=[^\s]{{0,200}}[^\W\d_])(?P<value>[^\s\"']{{3,200}})",
    re.IGNORECASE,
)
_USED_AS_SECRET = re.compile(
    r"\b(?:use|used|using|set|chose|picked) [\"'\u201c\u2018«]?(?P<value>[^\s\"'\u201d\u2019»]{3,200})"
    r"[\"'\u201d\u2019»]? as (?:the |my |our |a )?"
    rf"(?:{_SECRET_NOUNS})\b",
    re.IGNORECASE,
)
_NOT_A_SECRET = frozenset(
    {
        "the",
        "a",
        "an",
        "my",
        "your",
        "that",
        "this",
        "too",
        "very",
        "so",
        "not",
        "wrong",
        "correct",
        "same",
        "still",
        "also",
        "just",
        "in",
        "on",
        "at",
        "for",
        "of",
        "and",
        "or",
        "but",
        "it",
        "there",
        "here",
    }
)


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
    if len(set(_SEPARATORS.findall(raw))) > 1:  # "4157 7028.6765-8126" is not how a card is written
        return False
    groups = tuple(len(g) for g in _SEPARATORS.split(raw))
    return len(groups) == 1 or groups in _CARD_LAYOUTS or (set(groups[:-1]) == {4} and groups[-1] <= 4)


_SEPARATORS = re.compile(r"[ .-]+")


def _cards(text: str) -> Iterator[Span]:
    for m in _CARD.finditer(text):
        digits = _SEPARATORS.sub("", m.group())
        if 13 <= len(digits) <= 19 and _luhn(digits) and len(set(digits)) > 1 and _grouped_as_a_card(m.group()):
            yield Span(m.start(), m.end(), RedactKind.CARD)


def _ibans(text: str) -> Iterator[Span]:
    for m in _IBAN.finditer(text):
        # The match may run on into the next word of capitals and digits: take the longest valid prefix.
        raw = m.group()
        for end in range(len(raw), 14, -1):
            # a prefix ends where a group does, never inside a word ("... 554 is" is not read as "... 554 i")
            if raw[end - 1] != " " and raw[end : end + 1] in ("", " ") and _iban_valid(raw[:end].upper()):
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


# Words that say a phone number follows, in the languages of the countries whose numbers are read; scripts
# without spaces between words ("我的手机号是") are matched without a word boundary.
_PHONE_CUE = re.compile(
    r"\b(?:phone|call|ring|text|tel|mobile|cell|landline|whatsapp|signal|telegram|fax|portable|téléphone|handy"
    r"|telefon|festnetz|teléfono|móvil|celular|telefone|telemóvel|cellulare|gsm|komórk\w{0,3}|cep|телефон\w{0,2}"
    r"|позвони\w{0,2}|звони\w{0,2}|мобильн\w{0,3})|電話|电话|手机|手機|携帯|전화|핸드폰|휴대폰",
    re.IGNORECASE,
)
# "number" alone is said of order, lottery and membership numbers too ("número de pedido 4477-2291"): after
# it, digits in groups count only when grouped as one of PHONE_REGIONS writes its phone numbers. A person's
# own number ("my number", "mój numer", "мой номер", "numaram") is their phone number.
_NUMBER_CUE = re.compile(r"\b(?:number|numéro|nummer|número|numero|numer|номер)\b", re.IGNORECASE)
_OWN_NUMBER = re.compile(
    r"\b(?:my|your|his|her|our|their|mon|son|ma|mi|su|il mio|mein|meine|seine|ihre|mijn|mój|moj|meu|minha|мой|его"  # noqa: RUF001
    r"|её)"
    r" (?:\w{1,12} )?(?:number|numéro|nummer|número|numero|numer|номер)\b|\bnumaram\b",
    re.IGNORECASE,
)


def _looks_dialled(raw: str, numbers: tuple[phonenumbers.PhoneNumber, ...], cue: str) -> bool:
    """A run of digits is an order, ticket or reference number as often as a phone number: it counts only
    when said as one ("call me on", "my mobile"), written with an international prefix, in groups as that
    country writes its numbers ("020 7946 0958" yes; "4477-2291" or "8 336 817", valid German numbers
    grouped otherwise, no), or in one run after "number"."""
    if raw.startswith(("+", "00")) or cue == "phone":
        return True
    groups = _digit_groups(raw)
    if len(groups) == 1:
        return cue == "number"
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
# Not inside a word of Latin letters or digits; next to Chinese or Japanese script, which has no spaces
# ("電話番号は03-1234-5678です"), it may be.
_PHONE_CANDIDATE = re.compile(
    r"(?<![0-9A-Za-z\u00c0-\u024f_+#])(?:\+|00)?\(?\d{1,5}\)?(?:[ .\-/]?\(?\d{1,5}\)?){1,7}"
    r"(?![0-9A-Za-z\u00c0-\u024f_])"
)


# Dates and times are written with the same digits and separators as phone numbers.
_DATE_LIKE = re.compile(r"\d{4}[-/.]\d{1,2}[-/.]\d{1,2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|\d{1,2}[:h]\d{2}")


@lru_cache(maxsize=4096)
def _phone_numbers(raw: str, said: bool) -> tuple[phonenumbers.PhoneNumber, ...]:
    """The readings of `raw` libphonenumber calls valid numbers (one a region it may be read in): in the
    regions of PHONE_REGIONS, or in any region when the text says a number follows (`said`). With its "+"
    prefix, a number of the right length for its country counts too: the metadata lags new allocations
    ("+44 7911 654321"), and the "+" and the country code say enough."""
    if _DATE_LIKE.fullmatch(raw):
        return ()
    digits = sum(c.isdigit() for c in raw)
    if not 7 <= digits <= 15:
        return ()
    international = raw.startswith("+")
    regions: tuple[str | None, ...] = (None,) if international else ALL_REGIONS if said else PHONE_REGIONS
    number = "+" + raw[2:] if raw.startswith("00") else raw
    valid = []
    for region in regions:
        try:
            parsed = phonenumbers.parse(number, region)
        except phonenumbers.NumberParseException:
            continue
        if phonenumbers.is_valid_number(parsed) or (international and phonenumbers.is_possible_number(parsed)):
            valid.append(parsed)
    return tuple(valid)


def _cue(text: str, start: int) -> str:
    """What the 40 characters before a candidate say of it: "phone" (call me on, my mobile), "number"
    (my number is: also said of order numbers), or ""."""
    before = max(0, start - 40)
    if _PHONE_CUE.search(text, before, start) is not None or _OWN_NUMBER.search(text, before, start) is not None:
        return "phone"
    return "number" if _NUMBER_CUE.search(text, max(0, start - 40), start) is not None else ""


# Reading a candidate in every region is ~250 parses: a text is read so for its first few said numbers only,
# so that a message of "call 1234567 call 1234568 ..." costs no more than a few ordinary ones.
MAX_WIDE_READS = 20


def _phones(text: str) -> Iterator[Span]:
    wide_reads = 0
    for m in _PHONE_CANDIDATE.finditer(text):
        if text[max(0, m.start() - 1) : m.start()] == "#":  # "#2025011012" is an order or a ticket
            continue
        raw = m.group().rstrip(" .-/")
        cue = _cue(text, m.start())
        wide = cue == "phone" and not raw.startswith("+") and wide_reads < MAX_WIDE_READS
        wide_reads += wide
        numbers = _phone_numbers(raw, wide)
        if numbers and _looks_dialled(raw, numbers, cue):
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


def _secret_like(value: str) -> bool:
    """Made to be a secret rather than a word: digits, or symbols, or letters of both cases after the first."""
    return (
        any(c.isdigit() for c in value)
        or any(not c.isalnum() for c in value)
        or (any(c.isupper() for c in value[1:]) and any(c.islower() for c in value))
    )


def _prose(text: str, value: str, end: int) -> bool:
    """ "password: see the vault", "the token is pending approval": a plain lowercase word that the sentence
    goes on from is part of it, not a value."""
    return value.isalpha() and value.islower() and re.match(r" [a-z]", text[end : end + 2]) is not None


def _credentials(text: str) -> Iterator[Span]:
    for pattern in (_SECRET_TOKEN, _PRIVATE_KEY):
        for m in pattern.finditer(text):
            yield Span(m.start(), m.end(), RedactKind.CREDENTIAL)
    for pattern in (_ENV_SECRET, _URL_PASSWORD, _BEARER, _USED_AS_SECRET, _SAID_SECRET, _UNSAID_SECRET):
        for m in pattern.finditer(text):
            value = m.group("value").rstrip(".,;:)")  # a "!" or "?" may end a password: it goes with it
            start = m.start("value")
            if not value or value.lower() in _NOT_A_SECRET or _prose(text, value, start + len(value)):
                continue
            weak = pattern is _BEARER or (pattern is _SAID_SECRET and m.group("weak") is not None)
            if weak and not _secret_like(value):
                continue
            yield Span(start, start + len(value), RedactKind.CREDENTIAL)


def _emails(text: str) -> Iterator[Span]:
    if "@" in text:
        for m in _EMAIL.finditer(text):
            yield Span(m.start(), m.end(), RedactKind.EMAIL)
    for pattern in (_EMAIL_SPELLED, _EMAIL_WORDS):
        for m in pattern.finditer(text):
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
            if not _overlaps(span, taken):
                taken.append(span)
    return sorted(taken, key=lambda s: s.start)


def redact(text: str, kinds: Iterable[RedactKind] = ()) -> Redaction:
    """`text` with each span of `kinds` (credentials always) replaced by its placeholder."""
    return _replaced(text, find(text, kinds))


# A secret repeated is replaced only when it is at least this long: shorter values ("no", "42") are words.
_MIN_REPEATED_SECRET = 4


def redact_together(texts: Sequence[str], kinds: Iterable[RedactKind] = ()) -> list[Redaction]:
    """Each of `texts` (one request's messages) redacted as `redact` does; a credential found in any of them is
    also replaced wherever its value appears again as a whole word in any of them: a code the user says as
    such ("my gate code is 4711") and a tool echoes ("gate=4711") is one secret, and so is a password said
    twice. One pass over each text for the values, which are literals."""
    found = [find(text, kinds) for text in texts]
    secrets = {
        text[span.start : span.end]
        for text, spans in zip(texts, found, strict=True)
        for span in spans
        if span.kind is RedactKind.CREDENTIAL and span.end - span.start >= _MIN_REPEATED_SECRET
    }
    if not secrets:
        return [_replaced(text, spans) for text, spans in zip(texts, found, strict=True)]
    again = re.compile(
        r"(?<!\w)(?:" + "|".join(re.escape(v) for v in sorted(secrets, key=len, reverse=True)) + r")(?!\w)"
    )
    out = []
    for text, spans in zip(texts, found, strict=True):
        repeated = [Span(m.start(), m.end(), RedactKind.CREDENTIAL) for m in again.finditer(text)]
        repeated = [span for span in repeated if not _overlaps(span, spans)]
        out.append(_replaced(text, sorted([*spans, *repeated], key=lambda s: s.start)))
    return out


def _overlaps(span: Span, taken: Sequence[Span]) -> bool:
    return any(span.start < t.end and t.start < span.end for t in taken)


def _replaced(text: str, spans: Sequence[Span]) -> Redaction:
    """`text` with each of `spans` (in order, not overlapping) replaced by its kind's placeholder."""
    if not spans:
        return Redaction(text)
    parts: list[str] = []
    at = 0
    for span in spans:
        parts += [text[at : span.start], PLACEHOLDER[span.kind]]
        at = span.end
    parts.append(text[at:])
    return Redaction("".join(parts), Counter(s.kind for s in spans))
