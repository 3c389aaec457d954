"""Token buckets: how many calls a principal, or a whole tenant, may make per method."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

_RATE = re.compile(r"^\s*(\d+)\s*/\s*(\d*)\s*(s|m|h)\s*$")
_UNIT_SECONDS = {"s": 1.0, "m": 60.0, "h": 3600.0}


@dataclass(frozen=True, slots=True)
class Rate:
    """`calls` per `seconds`; a full bucket allows a burst of `calls`."""

    calls: int
    seconds: float

    @classmethod
    def parse(cls, text: str) -> Rate:
        """`100/m`, `10/s`, `5000/h`, `30/10s`."""
        match = _RATE.match(text)
        if match is None or int(match[1]) <= 0:
            raise ValueError(f"rate {text!r} is not like 100/m, 10/s or 30/10s")
        return cls(int(match[1]), int(match[2] or 1) * _UNIT_SECONDS[match[3]])


def parse_limits(text: str) -> dict[str, Rate]:
    """`Execute=100/m,CallTool=600/m,*=3000/m` -> {method: rate}; `*` is every other method."""
    limits: dict[str, Rate] = {}
    for part in text.split(","):
        if not part.strip():
            continue
        method, sep, rate = part.partition("=")
        if not sep or not method.strip():
            raise ValueError(f"rate limit {part!r} is not METHOD=RATE")
        limits[method.strip()] = Rate.parse(rate)
    return limits


class RateLimiter(Protocol):
    """Token buckets per (scope key, method)."""

    def rate_for(self, method: str) -> Rate | None:
        """The rate of `method` ('*' for methods without their own), or None: no limit."""
        ...

    async def take(self, key: str, method: str) -> float:
        """Take one token; 0.0 when allowed, else the seconds until a token is back."""
        ...


class Limits:
    """A method's bucket: its own rate, else the '*' rate, else none (no limit)."""

    def __init__(self, limits: Mapping[str, Rate]) -> None:
        self._limits = dict(limits)

    def bucket(self, method: str) -> tuple[str, Rate] | None:
        """(bucket name, rate) that a call of `method` draws from."""
        for name in (method, "*"):
            rate = self._limits.get(name)
            if rate is not None:
                return name, rate
        return None

    def rate_for(self, method: str) -> Rate | None:
        found = self.bucket(method)
        return found[1] if found is not None else None
