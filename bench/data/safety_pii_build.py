"""Writes bench/data/safety_pii.json, the labelled set of bench/parts/safety_pii.py: chat sentences with the personal
data and secrets each holds (kind and exact value), and look-alikes that hold none.

    python -m bench.data.safety_pii_build        # rewrites the file (deterministic: a fixed seed)

Check digits are computed here, never typed: card numbers pass Luhn (and invalid ones fail it by one digit),
IBANs pass mod 97 (invalid ones have their check digits moved by one), DNI/NIE letters, NIR keys and the
codice fiscale's check letter follow their published rules; every phone number is one libphonenumber calls
valid. Every third item (index % 3 == 2) of those before the carry-over set is held aside, marked in the file
before any run of the scorer; the carry-over items, appended after them, are all tuning.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import phonenumbers

OUT = Path(__file__).resolve().parent / "safety_pii.json"
rng = random.Random(44)


def luhn_digit(body: str) -> str:
    total = 0
    for i, char in enumerate(reversed(body)):
        d = int(char)
        if i % 2 == 0:  # the digit left of the check digit is doubled
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return str((10 - total % 10) % 10)


def card(prefix: str, length: int) -> str:
    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    return body + luhn_digit(body)


def iban(country: str, bban: str) -> str:
    moved = bban + country + "00"
    check = 98 - int("".join(str(int(c, 36)) for c in moved)) % 97
    return f"{country}{check:02d}{bban}"


def grouped(value: str, sizes: list[int], sep: str = " ") -> str:
    out, at = [], 0
    for size in sizes:
        out.append(value[at : at + size])
        at += size
    if at < len(value):
        out.append(value[at:])
    return sep.join(p for p in out if p)


def by4(value: str) -> str:
    return " ".join(value[i : i + 4] for i in range(0, len(value), 4))


def digits(n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def letters(n: int) -> str:
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZ") for _ in range(n))


DNI_LETTERS = "TRWAGMYFPDXBNJZSQVHLCKE"


def dni() -> str:
    n = rng.randrange(10_000_000, 99_999_999)
    return f"{n}{DNI_LETTERS[n % 23]}"


def nie() -> str:
    prefix = rng.choice("XYZ")
    n = digits(7)
    return f"{prefix}{n}{DNI_LETTERS[int(str('XYZ'.index(prefix)) + n) % 23]}"


def nir(spaced: bool) -> str:
    parts = [
        rng.choice("12"),
        f"{rng.randrange(40, 99):02d}",
        f"{rng.randrange(1, 13):02d}",
        f"{rng.randrange(1, 96):02d}",
        f"{rng.randrange(1, 999):03d}",
        f"{rng.randrange(1, 999):03d}",
    ]
    key = 97 - int("".join(parts)) % 97
    parts.append(f"{key:02d}")
    return " ".join(parts) if spaced else "".join(parts)


_CF_ODD = [1, 0, 5, 7, 9, 13, 15, 17, 19, 21, 2, 4, 18, 20, 11, 3, 6, 8, 12, 14, 16, 10, 22, 25, 24, 23]


def codice_fiscale() -> str:
    body = letters(6) + digits(2) + rng.choice("ABCDEHLMPRST") + f"{rng.randrange(1, 72):02d}" + letters(1) + digits(3)
    total = 0
    for i, c in enumerate(body):
        v = int(c) if c.isdigit() else ord(c) - 65
        total += _CF_ODD[v] if i % 2 == 0 else v
    return body + chr(65 + total % 26)


def alnum(n: int, chars: str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") -> str:
    return "".join(rng.choice(chars) for _ in range(n))


def b64url(n: int) -> str:
    return alnum(n, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")


items: list[dict[str, Any]] = []


def add(text: str, *spans: tuple[str, str], note: str = "") -> None:
    for _, value in spans:
        assert value in text, (value, text)
    item: dict[str, Any] = {"text": text, "spans": [{"kind": k, "value": v} for k, v in spans]}
    if note:
        item["note"] = note
    items.append(item)


def emails() -> None:
    for text, value in [
        ("You can email me at john.smith@gmail.com whenever.", "john.smith@gmail.com"),
        ("my work address is maria.garcia@acme-corp.com, personal one later", "maria.garcia@acme-corp.com"),
        ("Send the invite to priya+events@outlook.com please", "priya+events@outlook.com"),
        ("Mon adresse mail c'est claire.dubois@orange.fr", "claire.dubois@orange.fr"),
        ("Meine E-Mail: k.mueller@web.de", "k.mueller@web.de"),
        ("reach my sister on ana_lopez92@yahoo.es if I'm offline", "ana_lopez92@yahoo.es"),
        ("I changed it to Tom.Baker@Example.CO.UK last week", "Tom.Baker@Example.CO.UK"),
        ("my uni email is s1234567@ed.ac.uk", "s1234567@ed.ac.uk"),
        ("the landlord is <robert.finch@lettings.co.uk>", "robert.finch@lettings.co.uk"),
        ("write to me at jérôme.lefèvre@laposte.net.", "jérôme.lefèvre@laposte.net"),
        ("My boss's email is d.okafor@firm.ng and she hates cc", "d.okafor@firm.ng"),
        ("it's hiro.tanaka@docomo.ne.jp for my Japanese colleague", "hiro.tanaka@docomo.ne.jp"),
        ("contact: info@bakery-lucia.it", "info@bakery-lucia.it"),
        ("email me (sam.oconnor@proton.me) the recipe", "sam.oconnor@proton.me"),
        ("Her address is lena-schmidt@gmx.de; mine is below", "lena-schmidt@gmx.de"),
        ("I use dev.null.2024@icloud.com for newsletters", "dev.null.2024@icloud.com"),
        ("the school emailed from office@st-marys.sch.uk about the trip", "office@st-marys.sch.uk"),
        ("joao.silva@uol.com.br is my old one from Brazil", "joao.silva@uol.com.br"),
        ("Could you remember that my email is alex@alexwong.dev", "alex@alexwong.dev"),
        ("my dad is on p.kowalski@wp.pl", "p.kowalski@wp.pl"),
        ("billing goes to accounts@smallbiz.io", "accounts@smallbiz.io"),
        ("new email!! fatima.zahra@hotmail.fr", "fatima.zahra@hotmail.fr"),
        ("I told the vet to write to me at pets.of.olga@mail.ru", "pets.of.olga@mail.ru"),
        ("Ich bin unter j.weber@t-online.de erreichbar.", "j.weber@t-online.de"),
        ("Escríbeme a carmen.ruiz@telefonica.net", "carmen.ruiz@telefonica.net"),
        ("scrivimi a giulia.rossi@libero.it", "giulia.rossi@libero.it"),
        ("my github email is 1234567+octo@users.noreply.github.com", "1234567+octo@users.noreply.github.com"),
        ("email = mike_t@company.internal.example.com", "mike_t@company.internal.example.com"),
        ("the recruiter, nina.patel@talentfirm.co, wants a call", "nina.patel@talentfirm.co"),
        ("I registered with ben.h@fastmail.fm", "ben.h@fastmail.fm"),
        ("our shared inbox is family.jones@gmail.com", "family.jones@gmail.com"),
        ("reply to ahmed.k@aucegypt.edu about the thesis", "ahmed.k@aucegypt.edu"),
        ("my email is john at gmail dot com", "john at gmail dot com"),
        ("send it to lucy [at] lucyart [dot] net", "lucy [at] lucyart [dot] net"),
        ("Email: E.VANDAM@KPN.NL", "E.VANDAM@KPN.NL"),
        ("Je suis joignable à m.bernard@free.fr ou par courrier", "m.bernard@free.fr"),
        ("my partner's address is chris.evans1985@aol.com", "chris.evans1985@aol.com"),
        ("I'm q@x.ai on the beta list", "q@x.ai"),
        ("ping olivia.w@startup.co.nz when the build is green", "olivia.w@startup.co.nz"),
        ("use support-team@help.example.org for the ticket", "support-team@help.example.org"),
    ]:
        add(text, ("email", value))


PHONES = [
    ("call me on {} after six", "+44 7911 123456", "GB"),
    ("my mobile is 07911 123456", "07911 123456", "GB"),
    ("the office line is 020 7946 0958.", "020 7946 0958", "GB"),
    ("you can ring me at +44 (0)20 7946 0958", "+44 (0)20 7946 0958", "GB"),
    ("My number is (415) 555-2671, text first", "(415) 555-2671", "US"),
    ("call my cell 212-736-5000 if it's urgent", "212-736-5000", "US"),
    ("her phone: +1 646 555 0198", "+1 646 555 0198", "US"),
    ("text me at 617.555.0142", "617.555.0142", "US"),
    ("my number is 3125550187", "3125550187", "US"),
    ("Meine Handynummer ist 0151 23456789", "0151 23456789", "DE"),
    ("ruf mich an unter +49 30 901820", "+49 30 901820", "DE"),
    ("Telefon: 030/12345678", "030/12345678", "DE"),
    ("call the Munich office on +49 (0)89 2180 3456", "+49 (0)89 2180 3456", "DE"),
    ("mon portable c'est le 06 12 34 56 78", "06 12 34 56 78", "FR"),
    ("appelle-moi au +33 6 12 34 56 78", "+33 6 12 34 56 78", "FR"),
    ("le numéro du cabinet est 01.42.68.53.00", "01.42.68.53.00", "FR"),
    ("my French number is 0033 1 42 68 53 00", "0033 1 42 68 53 00", "FR"),
    ("mi móvil es 612 345 678", "612 345 678", "ES"),
    ("llámame al +34 912 345 678", "+34 912 345 678", "ES"),
    ("my Spanish number: +34 612-34-56-78", "+34 612-34-56-78", "ES"),
    ("il mio cellulare è 347 123 4567", "347 123 4567", "IT"),
    ("chiamami al +39 06 6982 1234", "+39 06 6982 1234", "IT"),
    ("mijn nummer is 06-12345678", "06-12345678", "NL"),
    ("call the Amsterdam desk on +31 20 123 4567", "+31 20 123 4567", "NL"),
    ("my Indian number is +91 98765 43210", "+91 98765 43210", "IN"),
    ("WhatsApp me on +91-98765-43210", "+91-98765-43210", "IN"),
    ("my mobile's 0412 345 678", "0412 345 678", "AU"),
    ("Sydney office: +61 2 9876 5432", "+61 2 9876 5432", "AU"),
    ("meu celular é (11) 91234-5678", "(11) 91234-5678", "BR"),
    ("call my cousin in São Paulo at +55 11 91234-5678", "+55 11 91234-5678", "BR"),
    ("my Tokyo number is +81 3-1234-5678", "+81 3-1234-5678", "JP"),
    ("text me on +52 55 1234 5678 while I'm in Mexico", "+52 55 1234 5678", "MX"),
    ("the Zurich number is +41 44 668 18 00", "+41 44 668 18 00", "CH"),
    ("my Irish mobile is +353 87 123 4567", "+353 87 123 4567", "IE"),
    ("babcia's phone is +48 512 345 678", "+48 512 345 678", "PL"),
    ("reach me at +44 7400 123456 anytime", "+44 7400 123456", "GB"),
    ("it's 07400 654321, the new phone", "07400 654321", "GB"),
    ("call 0161 496 0018 for the Manchester flat", "0161 496 0018", "GB"),
    ("my dentist's number is (212) 555-0173", "(212) 555-0173", "US"),
    ("I can be reached at 1-800-555-0199 during work", "1-800-555-0199", "US"),
    ("Handy: +49 171 2345678", "+49 171 2345678", "DE"),
    ("mein Festnetz ist 040 1234567", "040 1234567", "DE"),
    ("portable : 07 81 23 45 67", "07 81 23 45 67", "FR"),
    ("numéro fixe 04 91 23 45 67 (Marseille)", "04 91 23 45 67", "FR"),
    ("teléfono de casa 934 567 890", "934 567 890", "ES"),
    ("numero di casa 02 1234 5678", "02 1234 5678", "IT"),
    ("bel me op 020-1234567", "020-1234567", "NL"),
    ("my Bangalore landline is 080 2345 6789", "080 2345 6789", "IN"),
    ("the Melbourne office is (03) 9123 4567", "(03) 9123 4567", "AU"),
    ("telefone fixo (21) 2345-6789", "(21) 2345-6789", "BR"),
    ("my number is +1 (604) 555-0123 in Vancouver", "+1 (604) 555-0123", "CA"),
    ("call me: +33 (0)1 42 68 53 00", "+33 (0)1 42 68 53 00", "FR"),
    ("ring 0044 20 7946 0321 from abroad", "0044 20 7946 0321", "GB"),
    ("my number is 07911123456", "07911123456", "GB"),
    ("phone 015123456789 (the new Vodafone one)", "015123456789", "DE"),
]


def phones() -> None:
    for template, value, region in PHONES:
        number = value.replace("(0)", "")
        parsed = phonenumbers.parse("+" + number[2:] if number.startswith("00") else number, region)
        assert phonenumbers.is_valid_number(parsed), value
        add(template.format(value) if "{}" in template else template, ("phone", value))


def cards() -> None:
    brands = [
        ("4", 16),
        ("51", 16),
        ("55", 16),
        ("2221", 16),
        ("34", 15),
        ("37", 15),
        ("6011", 16),
        ("3528", 16),
        ("36", 14),
        ("62", 16),
        ("6759", 19),
        ("2720", 16),
        ("4", 13),
    ]
    templates = [
        "my card number is {}",
        "Visa: {}, exp 09/27",
        "I paid with {} yesterday",
        "card {} was declined",
        "use the card ending... actually the whole thing is {}",
        "ma carte bancaire : {}",
        "meine Kreditkarte ist {}",
        "mi tarjeta es la {}",
        "la mia carta è {}",
        "the company card: {}",
        "save my card {} for the subscription",
        "here's the number {} and the CVV is on the back",
    ]
    n = 0
    for prefix, length in brands:
        for style in range(3 if length != 13 else 1):
            number = card(prefix, length)
            if style == 0:
                value = number
            elif length == 15:
                value = grouped(number, [4, 6, 5], " " if style == 1 else "-")
            elif length == 14:
                value = grouped(number, [4, 6, 4], " " if style == 1 else "-")
            else:
                value = by4(number) if style == 1 else by4(number).replace(" ", "-")
            add(templates[n % len(templates)].format(value), ("card", value))
            n += 1
    # two numbers in one message
    a, b = by4(card("4", 16)), by4(card("53", 16))
    add(f"my old card {a} is cancelled, the new one is {b}", ("card", a), ("card", b))


def ibans() -> None:
    makers = [
        ("DE", lambda: digits(18)),
        ("GB", lambda: letters(4) + digits(14)),
        ("FR", lambda: digits(23)),
        ("ES", lambda: digits(20)),
        ("IT", lambda: letters(1) + digits(22)),
        ("NL", lambda: letters(4) + digits(10)),
        ("BE", lambda: digits(12)),
        ("CH", lambda: digits(17)),
        ("AT", lambda: digits(16)),
        ("PL", lambda: digits(24)),
    ]
    templates = [
        "my IBAN is {}",
        "please pay the deposit to {}",
        "IBAN: {} (Sparkasse)",
        "mon IBAN : {}",
        "meine IBAN lautet {}",
        "mi IBAN es {}",
        "il mio IBAN è {}",
        "rent goes to {} every month",
        "the landlord's account {} changed",
        "wire it to {} by Friday",
    ]
    n = 0
    for country, bban in makers:
        for style in range(4):
            value = iban(country, bban())
            value = by4(value) if style % 2 else value
            add(templates[n % len(templates)].format(value), ("iban", value))
            n += 1


def national_ids() -> None:
    ssn_values = ["078-05-1120", "123-45-6789", "219-09-9999", "512-34-8821", "345-67-1234", "601-23-4455"]
    for i, value in enumerate(ssn_values):
        add(
            ["my SSN is {}", "social security number {}", "SSN: {} for the tax form"][i % 3].format(value),
            ("national_id", value),
        )
    add("my social is 123 45 6789", ("national_id", "123 45 6789"))
    add("ssn 512348821 on the W-2", ("national_id", "512348821"))
    for i, value in enumerate(
        ["AB 12 34 56 C", "JG103759A", "NP 65 43 21 D", "CE123456B", "TW 98 76 54 A", "SK 11 22 33 D"]
    ):
        add(
            ["my NI number is {}", "National Insurance: {}", "NINO {} on the payslip"][i % 3].format(value),
            ("national_id", value),
        )
    for i in range(8):
        value = dni() if i % 2 == 0 else nie()
        if i == 3:
            value = value[:-1] + "-" + value[-1]
        add(["mi DNI es {}", "NIE: {}", "my Spanish ID number is {}"][i % 3].format(value), ("national_id", value))
    for i in range(8):
        value = nir(spaced=i % 2 == 0)
        add(
            ["mon numéro de sécu est {}", "NIR {}", "numéro de sécurité sociale : {}"][i % 3].format(value),
            ("national_id", value),
        )
    for i in range(8):
        value = codice_fiscale()
        add(
            ["il mio codice fiscale è {}", "codice fiscale: {}", "my Italian tax code is {}"][i % 3].format(value),
            ("national_id", value),
        )


def addresses() -> None:
    for text, value in [
        ("I live at 221B Baker Street, London", "221B Baker Street"),
        ("we moved to 42 Wallaby Way in Sydney", "42 Wallaby Way"),
        ("send it to 1600 Pennsylvania Avenue NW", "1600 Pennsylvania Avenue"),
        ("my flat is 7 Elm Close, Leeds LS6 2AB", "7 Elm Close"),
        ("the office is at 350 Fifth Avenue", "350 Fifth Avenue"),
        ("our new house: 14 Queen's Road, Bristol", "14 Queen's Road"),
        ("deliver to 88 Mill Lane please", "88 Mill Lane"),
        ("Mum still lives at 3 Orchard Drive", "3 Orchard Drive"),
        ("I'm at 1200 Market St. until June", "1200 Market St."),
        ("the studio is on 55 Sunset Blvd", "55 Sunset Blvd"),
        ("parcel for 9 Station Road, Cambridge", "9 Station Road"),
        ("my address is 27 King's Court", "27 King's Court"),
        ("Flat 2, 19 Victoria Terrace is where I am now", "19 Victoria Terrace"),
        ("we rent 5 Harbour View Crescent", "5 Harbour View Crescent"),
        ("home is 101 Maple Ave, Toronto", "101 Maple Ave"),
        ("J'habite au 12 rue de la Paix à Paris", "12 rue de la Paix"),
        ("mon adresse : 8 bis avenue Victor Hugo, Lyon", "8 bis avenue Victor Hugo"),
        ("le bureau est au 25 boulevard Haussmann", "25 boulevard Haussmann"),
        ("livrez au 3 place du Marché", "3 place du Marché"),
        ("ma mère habite 17 quai des Orfèvres", "17 quai des Orfèvres"),
        ("on a déménagé au 4 impasse des Lilas", "4 impasse des Lilas"),
        ("nouvelle adresse : 56 chemin des Vignes, Bordeaux", "56 chemin des Vignes"),
        ("I live at 10 rue Oberkampf in Paris", "10 rue Oberkampf"),
        ("notre appartement, 31 allée des Tilleuls", "31 allée des Tilleuls"),
        ("l'école est 2 cours Mirabeau", "2 cours Mirabeau"),
        ("Ich wohne in der Hauptstraße 5 in Köln", "Hauptstraße 5"),
        ("meine Adresse ist Bahnhofstr. 12a, Berlin", "Bahnhofstr. 12a"),
        ("wir sind in den Lindenweg 3 gezogen", "Lindenweg 3"),
        ("das Büro ist in der Goethestrasse 44", "Goethestrasse 44"),
        ("I live at Kastanienallee 19 in Prenzlauer Berg", "Kastanienallee 19"),
        ("Lieferadresse: Am Marktplatz 7", "Am Marktplatz 7"),
        ("meine Eltern wohnen Rosengasse 2", "Rosengasse 2"),
        ("my flat is on Berliner Allee 44", "Berliner Allee 44"),
        ("Praxis: Schillerplatz 3, Stuttgart", "Schillerplatz 3"),
        ("we're at Unter den Linden 77", "Unter den Linden 77"),
        ("Adresse: Mühlenring 10b", "Mühlenring 10b"),
        ("send the keys to 64 Church St, Dublin", "64 Church St"),
        ("I'm at 2/15 Beach Road, Bondi", "15 Beach Road"),
    ]:
        add(text, ("address", value))


def credentials() -> None:
    tokens = [
        ("my OpenAI key is {}", "sk-proj-" + b64url(48)),
        ("here's the API key {} for the bot", "sk-" + alnum(48)),
        ("the Anthropic key {} goes in the .env", "sk-ant-api03-" + b64url(60)),
        ("AWS access key id {}", "AKIA" + alnum(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")),
        ("temporary creds: {}", "ASIA" + alnum(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")),
        ("my GitHub token is {}", "ghp_" + alnum(36)),
        ("use {} for the CI", "github_pat_" + alnum(22) + "_" + alnum(59)),
        ("the Slack bot token {} stopped working", "xoxb-" + digits(12) + "-" + digits(13) + "-" + alnum(24)),
        ("Google Maps key: {}", "AIza" + b64url(35)),
        ("GitLab token {} expires Friday", "glpat-" + b64url(20)),
        ("oauth token {} from the app", "gho_" + alnum(36)),
        (
            "put {} in the header",
            "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkpvaG4ifQ." + b64url(43),
        ),
        ("my session JWT is {}", "eyJhbGciOiJSUzI1NiJ9.eyJ1c2VyIjoiYW5hIiwiZXhwIjoxNzAwMDAwMDAwfQ." + b64url(86)),
        ("another key {}", "sk-proj-" + b64url(64)),
        ("the deploy key is {}", "ghs_" + alnum(36)),
        ("AWS key {} in the old repo", "AKIA" + alnum(16, "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567")),
        ("slack user token {}", "xoxp-" + digits(11) + "-" + digits(11) + "-" + alnum(32)),
        ("Firebase key {}", "AIza" + b64url(35)),
    ]
    for template, value in tokens:
        add(template.format(value), ("credential", value))
    key = "MIIEowIBAAKCAQEA" + alnum(60) + "\n" + alnum(64) + "\n" + alnum(40) + "=="
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{key}\n-----END RSA PRIVATE KEY-----"
    add(f"this is the server key, keep it safe:\n{pem}", ("credential", pem))
    for text, value in [
        ("my password is hunter22", "hunter22"),
        ("password: Tr0ub4dor&3", "Tr0ub4dor&3"),
        ("the wifi password is sunflower88, it's on the fridge", "sunflower88"),
        ("my Netflix password is BlueSky!7", "BlueSky!7"),
        ("le mot de passe est Soleil2024!", "Soleil2024!"),
        ("das Passwort ist Geheim123", "Geheim123"),
        ("mi contraseña es perro1234", "perro1234"),
        ("PIN code is 4821", "4821"),
        ("my pin is 9034.", "9034"),
        ("the password for the router is admin4321", "admin4321"),
        ("my bank passcode is 771903", "771903"),
        ("passphrase: correct-horse-battery-staple", "correct-horse-battery-staple"),
        ("api key = 9f8e7d6c5b4a39281706", "9f8e7d6c5b4a39281706"),
        ("my password was Kitty2019 before I changed it", "Kitty2019"),
        ("our door code PIN: 2580", "2580"),
        ("the admin pwd is Zx9!qq77", "Zx9!qq77"),
        ("Kennwort ist Sommer!2023", "Sommer!2023"),
        ("a senha é Brasil#2022", "Brasil#2022"),
        ("token: 5c1f0a9e2b7d4c8f", "5c1f0a9e2b7d4c8f"),
        ("access key is Q7WZ-99TR-KK21", "Q7WZ-99TR-KK21"),
        ("my new password is now Marble&Gin42", "Marble&Gin42"),
        ("use hunter2 as the password for my laptop", "hunter2"),
        ("I set the password to Pumpkin#88", "Pumpkin#88"),
        ("the code to my phone is 135790", "135790"),
        ("my iCloud password's Lighthouse_19", "Lighthouse_19"),
        ("password for gmail is Winter.Sun.77", "Winter.Sun.77"),
        ("ma carte a le code PIN : 6120", "6120"),
    ]:
        add(text, ("credential", value))


def mixed() -> None:
    e, p = "olga.ivanova@gmail.com", "+44 7911 654321"
    add(f"my email is {e} and my number is {p}", ("email", e), ("phone", p))
    cn = by4(card("4", 16))
    add(f"card {cn}, and the password is Dolphin77", ("card", cn), ("credential", "Dolphin77"))
    ib = by4(iban("DE", digits(18)))
    add(f"Ich wohne Hauptstraße 12, IBAN {ib}", ("address", "Hauptstraße 12"), ("iban", ib))
    add(
        "write to lee.chan@nus.edu.sg or call +65 6516 1234",
        ("email", "lee.chan@nus.edu.sg"),
        ("phone", "+65 6516 1234"),
    )
    add("I'm at 12 rue Lepic, portable 06 98 76 54 32", ("address", "12 rue Lepic"), ("phone", "06 98 76 54 32"))


def lookalikes() -> None:
    bad_card = card("4", 16)
    bad_card = bad_card[:-1] + str((int(bad_card[-1]) + 1) % 10)
    bad_card2 = card("51", 16)
    bad_card2 = bad_card2[:-1] + str((int(bad_card2[-1]) + 3) % 10)
    good = iban("DE", digits(18))
    bad_iban = good[:2] + f"{(int(good[2:4]) + 1) % 100:02d}" + good[4:]
    good2 = iban("FR", digits(23))
    bad_iban2 = good2[:2] + f"{(int(good2[2:4]) + 7) % 100:02d}" + good2[4:]
    for text, note in [
        ("my order number is #2025011012", "order number"),
        ("Amazon order 112-4455667-8812334 arrived broken", "order number"),
        ("invoice 4155552671 is overdue", "invoice number"),
        ("the ticket is INC0012345, still open", "ticket number"),
        ("tracking number 1Z999AA10123456784", "tracking number"),
        ("USPS tracking 9400 1000 0000 0000 0000 00", "tracking number"),
        ("DHL says JD014600006281230 is in customs", "tracking number"),
        ("Royal Mail ref AB123456789GB", "tracking number"),
        ("my appointment is on 2024-03-15 at 14:30", "date and time"),
        ("we met on 15/03/2024 at 9:45", "date and time"),
        ("the flight leaves 03.04.2025 at 06:10", "date and time"),
        ("born 1987-11-02", "date"),
        ("the meeting moved to 12/11/2025 10:00-11:30", "date and time"),
        ("we upgraded to Python 3.12.1 and Django 5.0.3", "version"),
        ("version 2.14.3 broke the build", "version"),
        ("Android 14.0.0.123 is on my phone", "version"),
        ("the package is at v10.2.1-rc.3", "version"),
        ("IP address 192.168.1.254 is the router", "IP address"),
        ("the ISBN is 978-3-16-148410-0", "ISBN"),
        ("it cost $1,299.99 in the sale", "price"),
        ("I paid €2 450,00 for the sofa", "price"),
        ("we live in postcode SW1A 1AA", "postcode"),
        ("my zip is 94103", "zip code"),
        ("flight BA 2490 to Lisbon", "flight number"),
        ("room 1204, floor 12", "room number"),
        ("I ran 10 km in 52:13 today", "time"),
        ("the score was 3-2 after 90 minutes", "score"),
        ("my student ID is 20231187", "student number"),
        ("membership no. 55012 3348 expires soon", "membership number"),
        ("part number 8842-1190-03 is out of stock", "part number"),
        ("reference 2023/00451/B for the claim", "reference"),
        ("the password is wrong", "password said, no value"),
        ("my password is too short, it says", "password said, no value"),
        ("I forgot my password again", "password said, no value"),
        ("the password reset email never came", "password said, no value"),
        ("what is a good password manager?", "password said, no value"),
        ("my PIN is the same as my sister's", "pin said, no value"),
        ("the token ring network at work is ancient", "token said, no value"),
        ("my API key is in the vault, not here", "api key said, no value"),
        (f"this card number {bad_card} fails the check", "invalid card (Luhn)"),
        (f"a made-up card {by4(bad_card2)}", "invalid card (Luhn)"),
        ("1234 5678 9012 3456 is the example number", "invalid card (Luhn)"),
        ("0000 0000 0000 0000 on the dummy form", "dummy card"),
        (f"the IBAN {bad_iban} was rejected", "invalid IBAN (check digits)"),
        (f"IBAN {by4(bad_iban2)} bounced", "invalid IBAN (check digits)"),
        ("GB00 TEST 1234 5678 9012 34 is a placeholder", "invalid IBAN"),
        ("my SSN is not something I share", "ssn said, no value"),
        ("the serial is SN-4421-9983-1102", "serial number"),
        ("lottery numbers 4 8 15 16 23 42", "numbers"),
        ("the Wi-Fi network is called BT-Hub-5521", "network name"),
        ("I live on Baker Street", "street without a number"),
        ("we walked down Hauptstraße yesterday", "street without a number"),
        ("the rue de la Paix is lovely in spring", "street without a number"),
        ("I drove 300 miles down the road", "number then road"),
        ("there are 12 streets in the village", "number then street"),
        ("turn left after 2 blocks, then take the second street", "number then street"),
        ("we met at 5 on the avenue", "number then avenue"),
        ("chapter 11, section 4.2.1", "section numbers"),
        ("the recipe needs 250 g flour and 2 eggs", "quantities"),
        ("call me Sam", "call without a number"),
        ("my phone is an iPhone 15 Pro", "phone said, no number"),
        ("I scored 1450 on the SAT in 2019", "score and year"),
        ("the bus 73 and tram 12 stop here", "route numbers"),
        ("population 8 336 817 in 2020", "population"),
        ("the build id is 20240315.4 on the CI", "build id"),
        ("UUID 550e8400-e29b-41d4-a716-446655440000 in the logs", "uuid"),
        ("commit 9fceb02d0ae598e95dc970b74767f19372d61af8 fixed it", "git hash"),
        ("my email is down today", "email said, no address"),
        ("see section @mentions in the docs", "at sign"),
        ("meet @ 7pm at the cafe", "at sign"),
        ("the handle @sam_writes posted it", "social handle"),
        ("temperature hit 38.5 on 2024-07-19", "measurement and date"),
        ("GPS 51.5007, -0.1246 is Big Ben", "coordinates"),
        ("my bib number was 10432 in the marathon", "bib number"),
        ("the case number is 2:23-cv-01234", "court case number"),
        ("patient record MRN 004512378", "record number"),
        ("Kundennummer 5500123 bei der Telekom", "customer number"),
        ("numéro de commande 20240315-8841", "order number"),
        ("número de pedido 4477-2291", "order number"),
        ("the year 2025 was busy, 2026 too", "years"),
        ("my phone battery died at 15%", "phone said, no number"),
        ("sk-ating on Saturday with the kids", "sk- prefix in a word"),
        ("AKIA is my friend's nickname", "AKIA as a word"),
        ("the password policy needs 12 characters", "password said, no value"),
        ("eyJ is how base64 JSON starts, fun fact", "eyJ as a word"),
        ("my score in the 400 m was 58.21", "measurement"),
        ("ratio 16:9 on the new TV", "ratio"),
        ("ext. 4412 at reception", "extension"),
        ("the office is open 9-17, Mon-Fri", "hours"),
        ("model number KD-55X85J", "model number"),
        ("it's 3.5 GHz with 16 GB RAM", "specs"),
    ]:
        add(text, note=note)


# Written after the first rounds of tuning, to check that the methods carry over to formats the sets above
# do not hold (more countries, extensions, other groupings, other providers' keys, other ways to say a
# password) and to look-alikes of them. Appended after the items above, every one marked tuning (the split
# of the items above, by position, does not move); its own generator, so no value above changes.
carry_rng = random.Random(4404)

CARRY_PHONES = [
    ("call me on {} ext. 204 at work", "+1 415-555-2671", "US"),
    ("my desk line is {} x123", "(020) 7946 0958", "GB"),
    ("my Tokyo mobile is {}", "090-1234-5678", "JP"),
    ("the Berlin office: {}", "+49 (0) 30 12345678", "DE"),
    ("dial {} for the Munich branch", "0049 89 123456", "DE"),
    ("mon numéro : {}", "06.12.34.56.78", "FR"),
    ("la oficina de Madrid es el {}", "+34 91 123 45 67", "ES"),
    ("il numero di Marco è {}", "+39 333 123 4567", "IT"),
    ("bel me gerust: {}", "+31 (0)6 1234 5678", "NL"),
    ("my Swedish mobile is {}", "+46 70 123 45 67", "SE"),
    ("ring me on {} when you land in Stockholm", "070-123 45 67", "SE"),
    ("the Zurich flat's landline is {}", "044 668 18 00", "CH"),
    ("my Shanghai number: {}", "+86 138 0013 8000", "CN"),
    ("我的手机号是 {}", "138 0013 8000", "CN"),
    ("my Seoul number is {}", "+82 10-1234-5678", "KR"),
    ("her Korean cell: {}", "010-1234-5678", "KR"),
    ("whatsapp me at {} while I'm in Singapore", "+65 9123 4567", "SG"),
    ("my Cape Town number is {}", "+27 82 123 4567", "ZA"),
    ("call my brother in Lagos on {}", "+234 803 123 4567", "NG"),
    ("mi celular en CDMX es {}", "55 1234 5678", "MX"),
    ("my Vancouver cell is {}", "604.555.0123", "CA"),
    ("reach me at {} extension 5", "212 555 0173", "US"),
    ("мой номер {}", "+7 912 345-67-89", "RU"),
    ("позвони мне: {}", "8 (912) 345-67-89", "RU"),
    ("mój numer to {}", "512 345 678", "PL"),
    ("my Irish mobile: {}", "087 123 4567", "IE"),
    ("call me in Auckland on {}", "+64 21 123 4567", "NZ"),
    ("meu número é {}", "+55 (11) 91234-5678", "BR"),
    ("the Bangalore office number is {}", "+91 80 2345 6789", "IN"),
    ("my Dubai mobile is {}", "+971 50 123 4567", "AE"),
    ("numaram {}", "+90 532 123 45 67", "TR"),
    ("mi número en Buenos Aires: {}", "+54 9 11 1234-5678", "AR"),
    ("you can text {} any time", "+1.212.736.5000", "US"),
    ("I'm on {} most evenings", "07911 123456", "GB"),
    ("o meu telemóvel é o {}", "+351 912 345 678", "PT"),
    ("ring my Oslo number, {}", "+47 412 34 567", "NO"),
    ("Handynummer (Wien): {}", "+43 664 1234567", "AT"),
    ("mijn gsm is {}", "0470 12 34 56", "BE"),
    ("my Nairobi number is {}", "+254 712 345678", "KE"),
    ("call the Jakarta team on {}", "+62 812 3456 7890", "ID"),
]


def carry_over() -> None:
    for template, value, region in CARRY_PHONES:
        number = value.replace("(0)", "")
        parsed = phonenumbers.parse("+" + number[2:] if number.startswith("00") else number, region)
        assert phonenumbers.is_valid_number(parsed), value
        add(template.format(value), ("phone", value))
    for text, value in [
        ("newsletter goes to jane.doe+news@mail.example.co.uk", "jane.doe+news@mail.example.co.uk"),
        ("my work address is r.khan@research.dept.uni-example.edu", "r.khan@research.dept.uni-example.edu"),
        ("schreib an müller@bücher.de", "müller@bücher.de"),
        ("mailto:bob.stone@example.org is on my card", "bob.stone@example.org"),
        ("write to o'connor.finn@example.ie", "o'connor.finn@example.ie"),
        ("email: J_DOE-99@MY-COMPANY.COM.AU.", "J_DOE-99@MY-COMPANY.COM.AU"),
        ("my email is jane dot doe at gmail dot com", "jane dot doe at gmail dot com"),
        ("reach me at anna(at)example(dot)org", "anna(at)example(dot)org"),
        ("张伟的邮箱是 zhang.wei@163.com", "zhang.wei@163.com"),
        ("my kid's school email: 2031.smith.t@pupils.school.nz", "2031.smith.t@pupils.school.nz"),
    ]:
        add(text, ("email", value))
    rng = carry_rng
    for text, value in [
        ("card number {} exp 11/28", "-".join(_by(_card(rng, "4", 16), 4))),
        ("Amex {} (business)", " ".join(_by(_card(rng, "37", 15), 4, 6, 5))),
        ("my Mastercard is {}", " ".join(_by(_card(rng, "2223", 16), 4))),
        ("pay with {} please", "  ".join(_by(_card(rng, "5", 16), 4))),
        ("the Maestro card {} is my wife's", " ".join(_by(_card(rng, "6759", 19), 4))),
        ("Diners {} for the hotel", "-".join(_by(_card(rng, "36", 14), 4, 6, 4))),
        ("my debit card is {}.", _card(rng, "4", 16)),
        ("numéro de carte {}", ".".join(_by(_card(rng, "4", 16), 4))),
        ("JCB: {}", " ".join(_by(_card(rng, "3530", 16), 4))),
        ("UnionPay card {} for Taobao", " ".join(_by(_card(rng, "62", 16), 4))),
    ]:
        add(text.format(value), ("card", value))
    ibans = [
        ("SE", lambda: _d(rng, 20)),
        ("NO", lambda: _d(rng, 11)),
        ("DK", lambda: _d(rng, 14)),
        ("FI", lambda: _d(rng, 14)),
        ("IE", lambda: "AIBK" + _d(rng, 14)),
        ("PT", lambda: _d(rng, 21)),
        ("GR", lambda: _d(rng, 23)),
        ("RO", lambda: "BTRL" + _d(rng, 16)),
        ("HU", lambda: _d(rng, 24)),
        ("CZ", lambda: _d(rng, 20)),
        ("LU", lambda: _d(rng, 16)),
        ("TR", lambda: _d(rng, 22)),
        ("SA", lambda: _d(rng, 20)),
        ("BR", lambda: _d(rng, 23) + "C1"),
    ]
    templates = [
        "my IBAN is {}",
        "IBAN {} (lowercase on the app)",
        "paid into {}.",
        "kontonummer / IBAN: {}",
        "meu IBAN é {}",
        "my salary goes to {}, the joint account",
        "the charity's IBAN, {}, is on the flyer",
    ]
    for n, (country, bban) in enumerate(ibans):
        value = iban(country, bban())
        value = by4(value) if n % 2 else value
        if n == 1:
            value = value.lower()
        add(templates[n % len(templates)].format(value), ("iban", value))
    for text, value in [
        ("Stripe secret key {}", "sk_live_" + _a(rng, 24)),
        ("the Stripe restricted key is {}", "rk_live_" + _a(rng, 24)),
        ("SendGrid key {} for the mailer", "SG." + _a(rng, 22) + "." + _a(rng, 43)),
        ("my Hugging Face token {}", "hf_" + _a(rng, 34)),
        ("npm token {} for publishing", "npm_" + _a(rng, 36)),
        ("PyPI upload token: {}", "pypi-AgEIcHlwaS5vcmc" + _a(rng, 60)),
        (
            "the Slack webhook is {}",
            "https://hooks.slack.com/services/T0" + _a(rng, 8).upper() + "/B0" + _a(rng, 8).upper() + "/" + _a(rng, 24),
        ),
        ("DigitalOcean token {}", "dop_v1_" + "".join(rng.choice("0123456789abcdef") for _ in range(64))),
        ("Shopify admin token {}", "shpat_" + "".join(rng.choice("0123456789abcdef") for _ in range(32))),
        ("client secret: {}", _a(rng, 40)),
        ("my bearer token is {}", _a(rng, 48)),
        ("Authorization: Bearer {}", _a(rng, 40)),
        ("DATABASE_URL=postgres://app:{}@db.internal:5432/prod", "S3cr3tPass99"),
        ("DB_PASSWORD={}", "hunter2xyz"),
        ("export AWS_SECRET_ACCESS_KEY={}", _a(rng, 40)),
        ("my password? it's {}", "Sunshine99"),
        ("pw: {}", "Gr33nT3a!"),
        ("the wifi pass is {}", "BananaSplit42"),
        ("wifi password - {}", "Otter-Moon-7"),
        ("login is sam, pass {}", "Hello1234"),
        ("my pin number is {}", "4821"),
        ('my password is "{}"', "Tr0ub4dor"),
        ("le code wifi c'est {}", "maison2024"),
        ("la contraseña del wifi es {}", "gato-negro-9"),
        ("meine PIN lautet {}", "7412"),
        ("my secret key is {}", "a9f3c2e18b7d4f60"),
        ("the recovery code is {}", "K7PD-2QXM-9WTR"),
        ("my passcode for the alarm is {}", "3097"),
    ]:
        add(text.format(value), ("credential", value))
    for text, note in [
        ("Order #123-4567890-1234567 shipped", "order number"),
        ("order no. 4006 3813 3393 1 from the shop", "order number"),
        ("ref no. 2024-11-28-001 on the letter", "reference"),
        ("booking reference 7YH2QK, seat 14C", "booking reference"),
        ("we fly on 28 Nov 2025 at 14h30", "date and time"),
        ("the payment date is 2025.11.28", "date"),
        ("the party is 12.12.2025 from 19:00 to 23:30", "date and time"),
        ("install v2.3.4-beta.1 of the app", "version"),
        ("firmware 1.2.3.4567 fixed the bug", "version"),
        ("kernel 6.8.0-45-generic on the server", "version"),
        ("UPS tracking 1Z 999 AA1 01 2345 678 4", "tracking number"),
        ("FedEx tracking 7712 3456 7890", "tracking number"),
        ("USPS 9205 5000 0000 0000 0000 00", "tracking number"),
        ("the ISBN is 978-0-306-40615-7", "ISBN"),
        ("ISBN 0-306-40615-2 for the old edition", "ISBN"),
        ("ISBN 9780306406157 in the library", "ISBN"),
        ("EAN 4006381333931 on the box", "barcode"),
        ("it came to $12,345,678.90 in total", "amount"),
        ("le devis est de 1 234 567,89 €", "amount"),
        ("I owe £1,250.00 on the card", "amount"),
        ("patent US 9,876,543 B2 is ours", "patent number"),
        ("GPS 48.8566, 2.3522 is Paris", "coordinates"),
        ("MAC 00:1A:2B:3C:4D:5E on the router", "MAC address"),
        ("colour #FF5733 for the logo", "colour"),
        ("image digest sha256:9b2a7c1d8e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b", "digest"),
        ("the password must be at least 8 characters", "password said, no value"),
        ("password: see the vault", "password said, no value"),
        ("my password is the same as before", "password said, no value"),
        ("the token is pending approval", "token said, no value"),
        ("the API key is stored in env vars", "api key said, no value"),
        ("call me at 6 tonight", "call with a time"),
        ("ring me at 7:30 tomorrow", "ring with a time"),
        ("my number in the team is 23", "number said, no phone"),
        ("phone me in 10 minutes", "phone said, no number"),
        ("SWIFT code DEUTDEFF500 for the transfer", "BIC"),
        ("the sort code of the branch is 20-00-00", "sort code"),
        ("invoice INV-2025-000123 is paid", "invoice number"),
        ("the population was 1 234 567 in 2021", "population"),
        ("my step count was 12 345 678 this year", "count"),
        ("Windows build 22631.4460 installed", "build number"),
        ("PO 4500012345 approved by finance", "purchase order"),
        ("my loyalty card number is 6330 1234 5678", "loyalty number"),
    ]:
        add(text, note=note)


def _card(rng: random.Random, prefix: str, length: int) -> str:
    body = prefix + "".join(rng.choice("0123456789") for _ in range(length - len(prefix) - 1))
    return body + luhn_digit(body)


def _by(value: str, *sizes: int) -> list[str]:
    """`value` in groups of `sizes` (the last size repeated for the rest)."""
    out, at, i = [], 0, 0
    while at < len(value):
        size = sizes[min(i, len(sizes) - 1)]
        out.append(value[at : at + size])
        at, i = at + size, i + 1
    return out


def _d(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("0123456789") for _ in range(n))


def _a(rng: random.Random, n: int) -> str:
    return "".join(rng.choice("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789") for _ in range(n))


def main() -> None:
    emails()
    phones()
    cards()
    ibans()
    national_ids()
    addresses()
    credentials()
    mixed()
    lookalikes()
    for i, item in enumerate(items):
        item["held_aside"] = i % 3 == 2
    first_carry_over = len(items)
    carry_over()
    for item in items[first_carry_over:]:
        item["held_aside"] = False
        item["set"] = "carry-over"
    data = {
        "about": "Chat sentences with the personal data and secrets each holds (kind, exact value) and look-alikes "
        "that hold none (spans empty, a note says what they are). held_aside: every third item of the first "
        f"{first_carry_over}, fixed before any run of the scorer; never tuned on. The items after them (set: "
        "carry-over) were written later to check that the methods carry over; all are tuning. Written by "
        "bench/data/safety_pii_build.py.",
        "items": items,
    }
    OUT.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    spans = sum(len(i["spans"]) for i in items)
    print(f"{len(items)} items, {spans} spans, {sum(not i['spans'] for i in items)} look-alikes -> {OUT}")


if __name__ == "__main__":
    main()
