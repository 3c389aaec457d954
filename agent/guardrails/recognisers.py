"""Personal data in text: e-mail addresses, card numbers, IBANs, IP addresses, phone numbers.

Each recogniser finds candidates with an RE2 pattern (linear time, whatever the text) and
keeps only those that validate: a card number's Luhn digit, an IBAN's length for its
country and its mod-97 check, an IP address's octets (IPv6 by the standard library), a
phone number by libphonenumber (`phonenumbers`, Google's own rules for every region),
which is given only the short candidates, never the text. So dates, amounts and order
ids are not taken for personal data: a run of digits has to be a valid number of its kind.

A recogniser returns the spans it found, in order; they never overlap one another.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Callable, Iterator

import re2

from records.guardrails import Span

ENTITIES = ("email", "card", "iban", "ip", "phone")
"""The recognisers' names, as a check's `entities` option names them."""

_EMAIL = re2.compile(
    r"(?:^|[^A-Za-z0-9._%+-])([A-Za-z0-9._%+-]{1,64}@"
    r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,63})\b"
)
_DIGIT_RUN = re2.compile(r"\d(?:[ -]?\d){0,40}")
"""A run of digits, single spaces or dashes allowed between them (at most 41 digits: a
longer run is no card number, and the rest of it is a run of its own)."""
_IBAN = re2.compile(r"\b([A-Z]{2}\d{2}(?: ?[A-Z0-9]){11,30})")
_DOTTED = re2.compile(r"\d+(?:\.\d+)+")
_COLONED = re2.compile(r"[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*")
_DIGITS = re2.compile(r"\d+")
_PHONE = re2.compile(r"(?:^|[^\w+./-])((?:\+|00)?\(?\d[\d ().-]{5,22}\d)\b")
"""A phone number's candidate: a digit, 7 to 24 characters of digits, spaces, dots,
dashes and brackets, a digit; `+` or `00` before it makes it international."""

_REGISTRY = (
    "AD24 AE23 AL28 AT20 AZ28 BA20 BE16 BG22 BH22 BR29 BY28 CH21 CR22 CY28 CZ24 DE22 "
    "DK18 DO28 EE20 EG29 ES24 FI18 FO18 FR27 GB22 GE22 GI23 GL18 GR27 GT28 HR21 HU28 "
    "IE22 IL23 IQ23 IS26 IT27 JO30 KW30 KZ20 LB28 LC32 LI21 LT20 LU20 LV21 MC27 MD24 "
    "ME22 MK19 MR27 MT31 MU30 NL18 NO15 PK24 PL28 PS29 PT25 QA29 RO24 RS22 SA24 SC31 "
    "SE24 SI19 SK24 SM27 ST25 SV28 TL23 TN24 TR26 UA29 VA22 VG24 XK20"
)
IBAN_LENGTHS = {entry[:2]: int(entry[2:]) for entry in _REGISTRY.split(" ")}
"""The length of an IBAN in each country of the IBAN registry (ISO 13616)."""


def luhn_valid(digits: str) -> bool:
    """Whether a string of digits ends in a valid Luhn check digit."""
    total = 0
    for position, char in enumerate(reversed(digits)):
        value = ord(char) - 48
        if position % 2:
            value = value * 2 - 9 if value > 4 else value * 2
        total += value
    return total % 10 == 0


def iban_valid(compact: str) -> bool:
    """Whether an IBAN without spaces has its country's length and passes mod-97."""
    if IBAN_LENGTHS.get(compact[:2]) != len(compact) or not compact.isalnum():
        return False
    moved = compact[4:] + compact[:4]
    number = "".join(str(int(char, 36)) for char in moved)
    return int(number) % 97 == 1


def emails(text: str) -> list[Span]:
    return [Span(m.start(1), m.end(1), "EMAIL") for m in _EMAIL.finditer(text)]


def _apart(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] stands apart: no letter, digit or underscore right before
    or after it, and not after or before a decimal point or a thousands separator."""
    before = text[max(0, start - 2) : start].rjust(2)
    after = text[end : end + 2].ljust(2)
    if _word(before[1]) or _word(after[0]):
        return False
    decimal_before = before[1] in ".," and before[0].isdigit()
    return not (decimal_before or (after[0] in ".," and after[1].isdigit()))


def _word(char: str) -> bool:
    return char.isalnum() or char == "_"


def cards(text: str) -> list[Span]:
    """Card numbers: 13 to 19 digits (single spaces or dashes between them allowed) with a
    valid Luhn digit, starting as the card schemes' numbers do (2 to 6), neither all one
    digit nor part of a longer number. A run too long to be one card may hold one, written
    in groups: the longest run of whole groups in it that is a card is taken."""
    found: list[Span] = []
    for match in _DIGIT_RUN.finditer(text):
        if _apart(text, *match.span()):
            found.extend(_card_in_run(text, *match.span()))
    return found


def _is_card(digits: str) -> bool:
    return (
        13 <= len(digits) <= 19
        and digits[0] in "23456"
        and len(set(digits)) > 1
        and luhn_valid(digits)
    )


def _card_in_run(text: str, start: int, end: int) -> Iterator[Span]:
    run = text[start:end]
    digits = "".join(c for c in run if c.isdigit())
    if _is_card(digits):
        yield Span(start, end, "CARD")
        return
    if len(digits) < 13:
        return
    groups: list[tuple[int, int]] = []  # (start, end) of each group of digits in the run
    at = start
    for part in re2.split(r"[ -]", run):
        groups.append((at, at + len(part)))
        at += len(part) + 1
    best: tuple[int, int] | None = None
    for first in range(len(groups)):
        for last in range(len(groups) - 1, first - 1, -1):
            span = (groups[first][0], groups[last][1])
            if (best is None or span[1] - span[0] > best[1] - best[0]) and _is_card(
                "".join(c for c in text[span[0] : span[1]] if c.isdigit())
            ):
                best = span
    if best is not None:
        yield Span(*best, "CARD")


def ibans(text: str) -> list[Span]:
    """IBANs: a country code, two check digits and the account (spaces allowed between
    characters), as long as the country's IBANs are and passing the mod-97 check."""
    found: list[Span] = []
    for match in _IBAN.finditer(text):
        start = match.start(1)
        wanted = IBAN_LENGTHS.get(text[start : start + 2])
        if wanted is None:
            continue
        end, taken = start, 0
        while end < match.end(1) and taken < wanted:
            taken += text[end] != " "
            end += 1
        ends = taken == wanted and not (end < len(text) and text[end].isalnum())
        if ends and iban_valid(text[start:end].replace(" ", "")):
            found.append(Span(start, end, "IBAN"))
    return found


def ips(text: str) -> list[Span]:
    """IPv4 addresses (four octets of at most 255, not part of a longer dotted number or a
    version like v1.2.3.4) and IPv6 addresses (what the standard library takes for one,
    looking like an address: `_address_like`)."""
    found: list[Span] = []
    for match in _DOTTED.finditer(text):
        octets = match.group().split(".")
        octets_fit = all(len(octet) <= 3 and int(octet) <= 255 for octet in octets)
        if len(octets) == 4 and octets_fit and _apart(text, *match.span()):
            found.append(Span(match.start(), match.end(), "IP"))
    for match in _COLONED.finditer(text):
        candidate = match.group().rstrip(".:")
        start, end = match.start(), match.start() + len(candidate)
        if not _address_like(candidate) or not _apart(text, start, end):
            continue
        try:
            ipaddress.IPv6Address(candidate)
        except ValueError:
            continue
        found = [span for span in found if not start <= span.start < end]  # ::ffff:1.2.3.4
        found.append(Span(start, end, "IP"))
    return sorted(found, key=lambda span: span.start)


def _address_like(candidate: str) -> bool:
    """At least two groups written, four hex digits and a decimal one (`::1`, `a::b` in
    code and `::` are not taken for anyone's address)."""
    written = sum(1 for group in candidate.split(":") if group)
    hexes = sum(1 for char in candidate if char not in ":.")
    return written >= 2 and hexes >= 4 and any(char.isdigit() for char in candidate)


def phones(text: str, region: str | None = None) -> list[Span]:
    """Phone numbers that libphonenumber says are valid: international ones (`+44 20 7946
    0958`, `0044...`) always, national ones only with a `region` (a two-letter country
    code) to read them in, and only when written in the region's own groups (`(415)
    555-2671`, `415.555.2671`), so an order id of the right length is not taken for one."""
    import phonenumbers  # its metadata loads only where phone numbers are looked for

    found: list[Span] = []
    for match in _PHONE.finditer(text):
        candidate = match.group(1)
        international = candidate.startswith(("+", "00"))
        if not international and region is None:
            continue
        try:
            number = phonenumbers.parse(
                "+" + candidate[2:] if candidate.startswith("00") else candidate, region
            )
        except phonenumbers.NumberParseException:
            continue
        if not phonenumbers.is_valid_number(number):
            continue
        national = phonenumbers.format_number(number, phonenumbers.PhoneNumberFormat.NATIONAL)
        if international or _DIGITS.findall(candidate) == _DIGITS.findall(national):
            found.append(Span(match.start(1), match.end(1), "PHONE"))
    return found


Recogniser = Callable[[str], list[Span]]


def recognisers(entities: tuple[str, ...], region: str | None = None) -> list[Recogniser]:
    """The recognisers of `entities` (names from ENTITIES), phones read in `region`."""
    table: dict[str, Recogniser] = {
        "email": emails,
        "card": cards,
        "iban": ibans,
        "ip": ips,
        "phone": lambda text: phones(text, region),
    }
    return [table[name] for name in entities]
