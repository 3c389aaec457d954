"""The personal-data recognisers: what they find, and the ordinary text they leave alone."""

from __future__ import annotations

import pytest

from agent.guardrails.recognisers import (
    cards,
    emails,
    iban_valid,
    ibans,
    ips,
    luhn_valid,
    phones,
    recognisers,
)
from records.guardrails import Span


def found(spans: list[Span], text: str) -> list[str]:
    return [text[span.start : span.end] for span in spans]


ORDINARY = (
    "On 2024-01-15 at 12:30:45 order 12345678 (ref ORD-2024-000123) cost $1,234,567.89; "
    "invoice 2024/0042, version v1.2.3.4 of release 3.14.159, pi is 3.14159265358979323, "
    "serial 1234567890123, ISBN 978-3-16-148410-0, std::vector and a::b, call ext. 4021, "
    "ratio 1.2.3.4.5, tracking 9400 1000 0000 0000 0000 00, room 101, postcode 10115."
)


def test_ordinary_numbers_are_not_personal_data() -> None:
    for recognise in recognisers(("email", "card", "iban", "ip", "phone"), region="US"):
        assert recognise(ORDINARY) == [], recognise


def test_e_mail_addresses() -> None:
    text = "Write to bob.smith+tag@example.co.uk,ann@mail.example.org or @handle, not a@b."
    assert found(emails(text), text) == ["bob.smith+tag@example.co.uk", "ann@mail.example.org"]


@pytest.mark.parametrize(
    "number",
    [
        "4111 1111 1111 1111",  # Visa
        "4111-1111-1111-1111",
        "4111111111111111",
        "5555 5555 5555 4444",  # Mastercard
        "3782 822463 10005",  # Amex, 15 digits
        "6011111111111117",  # Discover
        "4222222222222",  # Visa, 13 digits
    ],
)
def test_card_numbers_with_a_valid_luhn_digit(number: str) -> None:
    text = f"card: {number}."
    assert found(cards(text), text) == [number]


@pytest.mark.parametrize(
    "text",
    [
        "4111 1111 1111 1112",  # the Luhn digit is wrong
        "0000 0000 0000 0000",  # passes Luhn, but all one digit
        "1111111111111117",  # passes Luhn, but no card scheme starts with 1
        "A4111111111111111",  # glued to a word
        "0.4111111111111111",  # a decimal fraction
        "411111111111",  # 12 digits
        "41111111111111111111",  # 20 digits
    ],
)
def test_what_is_not_a_card_number(text: str) -> None:
    assert cards(text) == []


def test_a_card_number_inside_a_longer_run_of_groups_is_found() -> None:
    text = "numbers 4111 1111 1111 1111 2 and more"
    assert found(cards(text), text) == ["4111 1111 1111 1111"]


def test_luhn_edge_cases() -> None:
    assert luhn_valid("0")
    assert luhn_valid("79927398713")
    assert not luhn_valid("79927398710")
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111121")


@pytest.mark.parametrize(
    "iban",
    [
        "DE89 3704 0044 0532 0130 00",
        "DE89370400440532013000",
        "GB82 WEST 1234 5698 7654 32",
        "FR14 2004 1010 0505 0001 3M02 606",
        "NO93 8601 1117 947",  # the shortest, 15
        "MT84 MALT 0110 0001 2345 MTLC AST0 01S",  # 31
    ],
)
def test_ibans_with_their_country_length_and_mod_97(iban: str) -> None:
    text = f"Pay to {iban}, thanks"
    assert found(ibans(text), text) == [iban]


@pytest.mark.parametrize(
    "text",
    [
        "DE88 3704 0044 0532 0130 00",  # wrong check digits
        "DE89 3704 0044 0532 0130",  # too short for Germany
        "ZZ89 3704 0044 0532 0130 00",  # no such country
        "DE89 3704 0044 0532 0130 001",  # too long: part of something else
    ],
)
def test_what_is_not_an_iban(text: str) -> None:
    assert ibans(text) == []


def test_mod_97_edge_cases() -> None:
    assert iban_valid("GB82WEST12345698765432")
    assert not iban_valid("GB82WEST12345698765433")
    assert not iban_valid("GB82WEST1234569876543")  # one short
    assert not iban_valid("GB82-EST12345698765432")


def test_ip_addresses() -> None:
    text = "from 192.168.1.10, 10.0.0.1. and 2001:db8::8a2e:370:7334 via fe80::1; ::ffff:1.2.3.4"
    assert found(ips(text), text) == [
        "192.168.1.10",
        "10.0.0.1",
        "2001:db8::8a2e:370:7334",
        "fe80::1",
        "::ffff:1.2.3.4",
    ]


def test_what_is_not_an_ip_address() -> None:
    assert ips("256.1.1.1 and 1.2.3 and 1.2.3.4.5 and v1.2.3.4 and 12:30:45 and ::1 and ::") == []


def test_international_phone_numbers_are_found_without_a_region() -> None:
    text = "Call +44 20 7946 0958 or 0044 20 7946 0958 or +1 (415) 555-2671; not (415) 555-2671"
    assert found(phones(text), text) == [
        "+44 20 7946 0958",
        "0044 20 7946 0958",
        "+1 (415) 555-2671",
    ]


def test_national_phone_numbers_are_found_in_a_region() -> None:
    text = "Call (415) 555-2671 or 415.555.2671, not 2024-01-15 nor 555-0100-9999-1234"
    assert found(phones(text, "US"), text) == ["(415) 555-2671", "415.555.2671"]
