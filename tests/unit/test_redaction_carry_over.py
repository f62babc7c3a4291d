"""Formats the first labelled sets did not hold (issue 44, carry-over): phones of more countries and said in
more languages, other groupings of cards and IBANs, e-mail addresses spelled in words, other providers' keys,
secrets in configuration and passwords said in other ways; and their look-alikes, which stay readable."""

from __future__ import annotations

import pytest

from engram.domain.policy import RedactKind
from engram.safety.redaction import find, redact

ALL = list(RedactKind)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # phones: national formats outside the default regions, when the text says a phone number follows
        ("the Zurich flat's landline is 044 668 18 00", "the Zurich flat's landline is [phone]"),
        ("我的手机号是 138 0013 8000", "我的手机号是 [phone]"),
        ("позвони мне: 8 (912) 345-67-89", "позвони мне: [phone]"),
        ("mój numer to 512 345 678", "mój numer to [phone]"),
        ("mijn gsm is 0470 12 34 56", "mijn gsm is [phone]"),
        # with its "+" prefix, a number of the right length for its country (the metadata lags allocations)
        ("my number is +44 7911 654321", "my number is [phone]"),
        # cards with dots or double spaces; IBANs in lower case
        ("numéro de carte 4111.1111.1111.1111", "numéro de carte [card]"),
        ("pay with 4111  1111  1111  1111 please", "pay with [card] please"),
        ("IBAN de89 3704 0044 0532 0130 00 on the app", "IBAN [iban] on the app"),
        # e-mail addresses with an apostrophe, or spelled in words
        ("write to o'connor.finn@example.ie", "write to [email]"),
        ("my email is jane dot doe at gmail dot com", "my email is [email]"),
    ],
)
def test_more_formats_are_replaced(text: str, expected: str) -> None:
    assert redact(text, ALL).text == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Stripe key sk_live_4eC39HqLyjWDarjtT1zdp7dc", "Stripe key [credential]"),
        ("my Hugging Face token hf_abcdefghijklmnopqrstuvwxyz0123456789", "my Hugging Face token [credential]"),
        ("SendGrid SG.abcdefghijklmnopqrstuv.abcdefghijklmnopqrstuvwxyz0123456789ABCDEFG", "SendGrid [credential]"),
        ("hook https://hooks.slack.com/services/T0ABCDEFG/B0ABCDEFG/abcdefghijklmnopqrstuvwx", "hook [credential]"),
        ("DB_PASSWORD=hunter2xyz", "DB_PASSWORD=[credential]"),
        ("export AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCY", "export AWS_SECRET_ACCESS_KEY=[credential]"),
        (
            "DATABASE_URL=postgres://app:S3cr3tPass99@db.internal:5432/prod",
            "DATABASE_URL=postgres://app:[credential]@db.internal:5432/prod",
        ),
        (
            "url postgres://app:S3cr3tPass99@db.internal:5432/prod",
            "url postgres://app:[credential]@db.internal:5432/prod",
        ),
        ("Authorization: Bearer q3FGqF05yMw47f1EDAaHcjiXQZRseqKf", "Authorization: Bearer [credential]"),
        ("client secret: q3FGqF05yMw47f1EDAaHcjiX", "client secret: [credential]"),
        ("my password? it's Sunshine99", "my password? it's [credential]"),
        ("pw: Gr33nT3a!", "pw: [credential]"),
        ("the wifi pass is BananaSplit42", "the wifi pass is [credential]"),
        ("wifi password - Otter-Moon-7", "wifi password - [credential]"),
        ("login is sam, pass Hello1234", "login is sam, pass [credential]"),
        ("my pin number is 4821", "my pin number is [credential]"),
        ('my password is "Tr0ub4dor"', 'my password is "[credential]"'),
        ("le code wifi c'est maison2024", "le code wifi c'est [credential]"),
        ("la contraseña del wifi es gato-negro-9", "la contraseña del wifi es [credential]"),
        ("meine PIN lautet 7412", "meine PIN lautet [credential]"),
        ("the recovery code is K7PD-2QXM-9WTR", "the recovery code is [credential]"),
        ("use hunter2 as the password for my laptop", "use [credential] as the password for my laptop"),
        ("the code to my phone is 135790", "the code to my phone is [credential]"),
    ],
)
def test_credentials_of_more_providers_and_said_in_more_ways(text: str, expected: str) -> None:
    assert redact(text).text == expected  # credentials whatever the tenant asks for


@pytest.mark.parametrize(
    "text",
    [
        "número de pedido 4477-2291",  # "number" of an order: grouped as no default region writes a phone
        "call me at 6 tonight",
        "ring me at 7:30 tomorrow",
        "my number in the team is 23",
        "FedEx tracking 7712 3456 7890",
        "the ISBN is 978-0-306-40615-7",
        "le devis est de 1 234 567,89 €",
        "MAC 00:1A:2B:3C:4D:5E on the router",
        "password: see the vault",
        "the token is pending approval",
        "the API key is stored in env vars",
        "the password must be at least 8 characters",
        "the sort code of the branch is 20-00-00",
        "my bus pass 1234 expired",
        "SWIFT code DEUTDEFF500 for the transfer",
        "OAUTH: enabled for the app",
    ],
)
def test_look_alikes_of_the_new_formats_are_left_alone(text: str) -> None:
    assert find(text, ALL) == [], find(text, ALL)


@pytest.mark.parametrize(
    "text",
    [
        "call 1234567 " * 8_000,  # every candidate said as a phone number: only the first few read in every region
        "A_" * 50_000 + "PASSWORD=x",
        "x dot " * 20_000 + "at y dot com",
        "password for a " * 10_000,
        "pass " * 20_000,
        "4 " * 50_000,
        "postgres://" + "a" * 100_000,
        "e.g. " * 20_000,
    ],
)
def test_adversarial_input_to_the_new_patterns_is_read_in_one_pass(text: str) -> None:
    # Linear patterns and bounded checks: each finishes in well under a few seconds; a backtracking one would not.
    redact(text, ALL)


# Written after the fixes above, to check that they carry over to formats they were not tuned on.
@pytest.mark.parametrize(
    ("text", "value", "kind"),
    [
        ("telefonní číslo 601 123 456", "601 123 456", RedactKind.PHONE),
        ("ring me: 020-7946 0958", "020-7946 0958", RedactKind.PHONE),
        ("mobile +44(0)7911 123456", "+44(0)7911 123456", RedactKind.PHONE),
        ("my cell is 415.555.2671 x 12", "415.555.2671", RedactKind.PHONE),
        ("電話番号は03-1234-5678です", "03-1234-5678", RedactKind.PHONE),
        ("ring 0033 6 12 34 56 78", "0033 6 12 34 56 78", RedactKind.PHONE),
        ("numero di telefono 06 1234 5678", "06 1234 5678", RedactKind.PHONE),
        ("Icelandic IBAN IS140159260076545510730339", "IS140159260076545510730339", RedactKind.IBAN),
        ("my email is bob (at) example (dot) com", "bob (at) example (dot) com", RedactKind.EMAIL),
        ("password=Qwerty!2024", "Qwerty!2024", RedactKind.CREDENTIAL),
        ("the PIN for my card is 0427", "0427", RedactKind.CREDENTIAL),
        ("my bank login password is: Fr0gLeg$", "Fr0gLeg$", RedactKind.CREDENTIAL),
        ("API_KEY: 3f9a8b7c6d5e4f3a2b1c", "3f9a8b7c6d5e4f3a2b1c", RedactKind.CREDENTIAL),
        ("Wi-Fi: network HomeNet, password Tulip_2024", "Tulip_2024", RedactKind.CREDENTIAL),
        ("la clave del banco es 8842", "8842", RedactKind.CREDENTIAL),
    ],
)
def test_formats_written_after_the_fixes_are_found(text: str, value: str, kind: RedactKind) -> None:
    start = text.index(value)
    spans = find(text, ALL)
    assert any(s.kind == kind and s.start <= start and s.end >= start + len(value) for s in spans), spans


@pytest.mark.parametrize(
    "text",
    [
        "order 2024-000123-45 shipped",
        "invoice no. 4155 5526 71",
        "ISBN 978-1-4028-9462-6",
        "version 10.0.19045.4291",
        "my phone number changed last week",
        "the password is in the drawer",
        "tracking 1Z 12345E 66 12345678 9",
        "my PIN is four digits",
        "pass the salt 2 times",
        "token economy is a psychology term",
        "bus pass 2024 renewed",
        "serial 4T1BF1FK5CU123456",
    ],
)
def test_look_alikes_written_after_the_fixes_are_left_alone(text: str) -> None:
    assert find(text, ALL) == [], find(text, ALL)
