"""PII and secrets found in user text, and the look-alikes that must be left alone (engram/safety)."""

from __future__ import annotations

import pytest

from engram.domain.policy import RedactKind, TenantConfig
from engram.safety.redaction import find, redact, redact_together

ALL = list(RedactKind)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("write to ana.lima+work@example.co.uk please", "write to [email] please"),
        ("mail zoë@exemple.fr", "mail [email]"),
        ("my card is 4111 1111 1111 1111, exp 04/29", "my card is [card], exp 04/29"),
        ("amex 3782-822463-10005", "amex [card]"),
        ("IBAN DE89 3704 0044 0532 0130 00 for rent", "IBAN [iban] for rent"),
        ("pay to GB82WEST12345698765432", "pay to [iban]"),
        ("call me on +44 7911 123456", "call me on [phone]"),
        ("my number is (415) 555-2671", "my number is [phone]"),
        ("mon portable: +33 6 12 34 56 78", "mon portable: [phone]"),
        ("SSN 123-45-6789", "SSN [national id]"),
        ("NI number AB 12 34 56 C", "NI number [national id]"),
        ("mi DNI es 12345678Z", "mi DNI es [national id]"),
        ("NIE X1234567L", "NIE [national id]"),
        ("codice fiscale RSSMRA85T10A562S", "codice fiscale [national id]"),
        ("we live at 221B Baker Street now", "we live at [address] now"),
        ("j'habite 12 rue de la Paix", "j'habite [address]"),
        ("ich wohne in der Hauptstraße 5", "ich wohne in der [address]"),
    ],
)
def test_each_kind_is_replaced_by_its_placeholder(text: str, expected: str) -> None:
    assert redact(text, ALL).text == expected


@pytest.mark.parametrize(
    "text",
    [
        "order 4111 1111 1111 1112 ships on 2025-01-10",  # fails Luhn
        "release v1.2.3 and build 20250110",
        "tracking 1Z999AA10123456784",
        "the meeting is 10:30-11:45 on 12/03/2025",
        "DE89 3704 0044 0532 0130 01 is not a valid IBAN",  # wrong check digits
        "DNI 12345678A",  # wrong check letter
        "the password is wrong again",
        "my boss always tells me the secret is patience",
        "I ran 10 km in 52:31 at mile 3",
        "ticket #2025011012",
    ],
)
def test_look_alikes_are_left_alone(text: str) -> None:
    assert find(text, ALL) == [], find(text, ALL)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("my password is hunter22!", "my password is [credential]"),  # a last "!" may be the password's
        ("my password is hunter22.", "my password is [credential]."),
        ("the wifi password: Tr0ub4dor&3", "the wifi password: [credential]"),
        ("use sk-proj-abcdefghijklmnopqrstuvwxyz0123 for the API", "use [credential] for the API"),
        ("aws key AKIAIOSFODNN7EXAMPLE leaked", "aws key [credential] leaked"),
        ("token ghp_abcdefghijklmnopqrstuvwxyz0123456789", "token [credential]"),
        ("mon mot de passe est soleil42", "mon mot de passe est [credential]"),
        ("mein Passwort ist Sommer2024", "mein Passwort ist [credential]"),
    ],
)
def test_credentials_are_redacted_whatever_the_tenant_chose(text: str, expected: str) -> None:
    assert redact(text, []).text == expected


def test_only_the_kinds_asked_for_are_redacted_besides_credentials() -> None:
    text = "email ana@example.com, card 4111 1111 1111 1111, password is hunter22"
    result = redact(text, [RedactKind.EMAIL])
    assert result.text == "email [email], card 4111 1111 1111 1111, password is [credential]"
    assert result.found == {RedactKind.EMAIL: 1, RedactKind.CREDENTIAL: 1}


def test_a_card_number_is_not_also_read_as_a_phone_number() -> None:
    assert [s.kind for s in find("card 4111111111111111", ALL)] == [RedactKind.CARD]


@pytest.mark.parametrize(
    "text",
    [
        "a" * 100_000 + "@",
        "1 " * 50_000,
        "password is " * 10_000,
        "eyJ" + "a" * 100_000,
        "-----BEGIN PRIVATE KEY-----" * 3_000,
        "9" * 100_000,
        "Ab" * 50_000 + "straße 5",
    ],
)
def test_adversarial_input_is_read_in_one_pass(text: str) -> None:
    # Linear patterns: each of these finishes in well under a second; a backtracking one would not finish.
    redact(text, ALL)


def test_the_tenant_setting_names_kinds_and_rejects_unknown_ones() -> None:
    assert TenantConfig.model_validate({"redact": ["email", "phone"]}).redact == [RedactKind.EMAIL, RedactKind.PHONE]
    with pytest.raises(ValueError, match="redact"):
        TenantConfig.model_validate({"redact": ["dna"]})


def test_a_bare_run_of_digits_is_a_phone_number_only_when_said_as_one() -> None:
    assert redact("text me at 4155552671", ALL).text == "text me at [phone]"
    assert redact("invoice 4155552671 is paid", ALL).text == "invoice 4155552671 is paid"


def test_an_identifier_that_passes_its_own_check_is_not_taken_for_a_card() -> None:
    # a French NIR whose 15 digits also happen to pass Luhn (1 number in 10 does): its key is the stronger check
    assert redact("mon numéro de sécu est 2 60 07 32 947 276 17", ALL).text == "mon numéro de sécu est [national id]"


@pytest.mark.parametrize(
    "text",
    [
        "Amazon order 112-4455667-8812334 arrived broken",  # passes Luhn, but no issuer groups digits 3-7-7
        "membership no. 55012 3348 expires soon",
        "lottery numbers 4 8 15 16 23 42",
        "population 8 336 817 in 2020",
        "número de pedido 4477-2291",
        "reference 2023/00451/B for the claim",
        "the build id is 20240315.4 on the CI",
        "the meeting moved to 12/11/2025 10:00-11:30",
    ],
)
def test_digits_grouped_as_no_card_or_phone_is_written_are_left_alone(text: str) -> None:
    assert find(text, ALL) == [], find(text, ALL)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("the office line is 020 7946 0958.", "the office line is [phone]."),  # grouped as the UK writes it
        ("card 4111-1111-1111-1111 expired", "card [card] expired"),
        ("the password for the router is admin4321", "the password for the router is [credential]"),
        ("my iCloud password's Lighthouse_19", "my iCloud password's [credential]"),
        ("ma carte a le code PIN : 6120", "ma carte a le code PIN : [credential]"),
        ("le bureau est au 25 boulevard Haussmann", "le bureau est au [address]"),
        ("Lieferadresse: Am Marktplatz 7", "Lieferadresse: [address]"),
        ("my flat is on Berliner Allee 44", "my flat is on [address]"),
    ],
)
def test_numbers_written_as_people_write_them_are_found_whole(text: str, expected: str) -> None:
    assert redact(text, ALL).text == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("send it to lucy [at] lucyart [dot] net", "send it to [email]"),
        ("mail me: sam.k (at) proton (dot) me", "mail me: [email]"),
        ("ssn 512348821 on the W-2", "ssn [national id] on the W-2"),
        ("my social security number is 219 09 9999", "my social security number is [national id]"),
    ],
)
def test_an_address_or_number_written_to_dodge_a_filter_is_still_found(text: str, expected: str) -> None:
    assert redact(text, ALL).text == expected


def test_nine_digits_without_a_word_saying_ssn_are_not_one() -> None:
    assert find("order 512348821 shipped", ALL) == []


def test_a_secret_said_once_is_redacted_wherever_the_request_repeats_it() -> None:
    said = ["My gate code is 4711", "Noted.", "gate=4711", "the 47110 bus and 4711 again", "Thanks!"]
    assert [r.text for r in redact_together(said)] == [
        "My gate code is [credential]",
        "Noted.",
        "gate=[credential]",
        "the 47110 bus and [credential] again",  # whole words only
        "Thanks!",
    ]


def test_a_password_said_twice_in_one_message_is_redacted_both_times() -> None:
    (result,) = redact_together(["my password is Tr0ub4dor, yes Tr0ub4dor"])
    assert result.text == "my password is [credential], yes [credential]"
    assert result.count == 2


def test_a_short_secret_is_not_hunted_through_the_other_messages() -> None:
    said = ["my PIN is 907", "flight 907 was late"]
    assert [r.text for r in redact_together(said)] == ["my PIN is [credential]", "flight 907 was late"]
