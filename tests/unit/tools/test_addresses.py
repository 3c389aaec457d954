"""The address filter, in-process only: every special-purpose range is refused, IPv6 forms
that carry an IPv4 address are judged by it, and public addresses pass. Nothing here
connects anywhere."""

from __future__ import annotations

import ipaddress

import pytest

from tools.builtin.addresses import embedded_ipv4, refusal


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("192.0.0.8", "IETF protocol assignments"),  # is_global says True; IANA says no
        ("192.0.0.170", "IETF protocol assignments"),
        ("192.88.99.1", "6to4 relay anycast"),
        ("192.0.2.10", "documentation"),
        ("198.18.0.1", "benchmarking"),
        ("100.64.1.1", "shared"),
        ("240.0.0.1", "reserved"),
        ("255.255.255.255", "broadcast"),
        ("169.254.169.254", "link-local"),
        ("2002:c0a8:0101::1", "private"),  # 6to4 of 192.168.1.1
        ("2002:7f00:0001::", "loopback"),  # 6to4 of 127.0.0.1
        ("2002:a9fe:a9fe::1", "link-local"),  # 6to4 of the metadata address
        ("64:ff9b::7f00:1", "loopback"),  # NAT64 of 127.0.0.1
        ("64:ff9b::a00:1", "private"),  # NAT64 of 10.0.0.1
        ("64:ff9b:1::1", "translation"),
        ("::ffff:10.1.2.3", "private"),
        ("::127.0.0.1", "loopback"),  # IPv4-compatible
        ("fec0::1", "site-local"),
        ("3fff::1", "documentation"),
        ("2001::1", "IETF protocol assignments"),  # Teredo
        ("2001:db8::1", "documentation"),
        ("fc00::1", "unique local"),
        ("fe80::1", "link-local"),
        ("ff02::1", "multicast"),
        ("::", "unspecified"),
        ("::1", "loopback"),
        ("5f00::1", "segment routing"),
    ],
)
def test_special_purpose_addresses_are_refused(address: str, why: str) -> None:
    found = refusal(ipaddress.ip_address(address))
    assert found is not None
    assert why in found


@pytest.mark.parametrize(
    "address", ["8.8.8.8", "1.1.1.1", "2606:4700::1111", "2002:0808:0808::1", "64:ff9b::808:808"]
)
def test_public_addresses_pass(address: str) -> None:
    assert refusal(ipaddress.ip_address(address)) is None


def test_allowed_networks_open_a_range_also_in_its_ipv6_forms() -> None:
    allowed = [ipaddress.ip_network("10.20.0.0/16")]
    for address in ("10.20.1.2", "::ffff:10.20.1.2", "64:ff9b::a14:102", "2002:0a14:0102::"):
        assert refusal(ipaddress.ip_address(address), allowed) is None
    assert refusal(ipaddress.ip_address("10.21.0.1"), allowed) is not None


def test_embedded_ipv4_forms() -> None:
    def inner(text: str) -> str | None:
        found = embedded_ipv4(ipaddress.IPv6Address(text))
        return str(found) if found is not None else None

    assert inner("::ffff:1.2.3.4") == "1.2.3.4"
    assert inner("2002:0102:0304::") == "1.2.3.4"
    assert inner("64:ff9b::102:304") == "1.2.3.4"
    assert inner("::1.2.3.4") == "1.2.3.4"
    assert inner("2606:4700::1111") is None
    assert inner("::1") is None
