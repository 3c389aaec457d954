"""Which network addresses `http_request` may reach: public unicast only.

An explicit deny list of the IANA special-purpose address registries (IPv4
and IPv6) decides, not Python's `is_global` alone (which, for one, calls
192.0.0.0/24 global). Addresses that carry an IPv4 address inside them are
decoded and that address is judged too: IPv4-mapped (::ffff:a.b.c.d),
IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002:aabb:ccdd::/48)
and Teredo (2001:0::/32, refused whole). Operators may allow chosen networks
anyway (`AGENTD_HTTP_ALLOWED_NETWORKS`).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_V4 = {
    "0.0.0.0/8": "this network",
    "10.0.0.0/8": "private",
    "100.64.0.0/10": "shared (carrier-grade NAT)",
    "127.0.0.0/8": "loopback",
    "169.254.0.0/16": "link-local",
    "172.16.0.0/12": "private",
    "192.0.0.0/24": "IETF protocol assignments",
    "192.0.2.0/24": "documentation",
    "192.31.196.0/24": "AS112",
    "192.52.193.0/24": "AMT",
    "192.88.99.0/24": "6to4 relay anycast",
    "192.168.0.0/16": "private",
    "192.175.48.0/24": "AS112 delegation",
    "198.18.0.0/15": "benchmarking",
    "198.51.100.0/24": "documentation",
    "203.0.113.0/24": "documentation",
    "224.0.0.0/4": "multicast",
    "255.255.255.255/32": "broadcast",
    "240.0.0.0/4": "reserved",
}
_V6 = {
    "::/128": "unspecified",
    "::1/128": "loopback",
    "100::/64": "discard-only",
    "100:0:0:1::/64": "dummy prefix",
    "64:ff9b:1::/48": "local-use IPv4/IPv6 translation",
    "2001::/23": "IETF protocol assignments (Teredo included)",
    "2001:db8::/32": "documentation",
    "2620:4f:8000::/48": "AS112",
    "3fff::/20": "documentation",
    "5f00::/16": "segment routing",
    "fc00::/7": "unique local (private)",
    "fe80::/10": "link-local",
    "fec0::/10": "site-local (deprecated)",
    "ff00::/8": "multicast",
}
DENIED: tuple[tuple[IPNetwork, str], ...] = tuple(
    (ipaddress.ip_network(net), why) for table in (_V4, _V6) for net, why in table.items()
)
_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_SIX_TO_FOUR = ipaddress.ip_network("2002::/16")
_COMPATIBLE = ipaddress.ip_network("::/96")


def embedded_ipv4(address: ipaddress.IPv6Address) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 address carries (mapped, compatible, NAT64, 6to4)."""
    if address.ipv4_mapped is not None:
        return address.ipv4_mapped
    if address.sixtofour is not None:
        return address.sixtofour
    if address in _NAT64 or (address in _COMPATIBLE and int(address) > 1):
        return ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return None


def refusal(address: IPAddress, allowed: Iterable[IPNetwork] = ()) -> str | None:
    """Why `address` may not be reached, or None when it may."""
    allowed = tuple(allowed)
    candidates: list[IPAddress] = [address]
    if isinstance(address, ipaddress.IPv6Address):
        inner = embedded_ipv4(address)
        if inner is not None:
            candidates.insert(0, inner)  # what it leads to is judged (and named) first
    for candidate in candidates:
        if any(candidate in net for net in allowed if net.version == candidate.version):
            return None
    for candidate in candidates:
        for net, why in DENIED:
            if net.version == candidate.version and candidate in net:
                return f"{why} addresses are not allowed ({net})"
        if not candidate.is_global:
            return "non-public addresses are not allowed"
    return None
