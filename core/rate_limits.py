"""Token buckets: how many calls a principal, or a whole tenant, may make per method."""

from __future__ import annotations

import re
import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping
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


class TokenBuckets:
    """Token buckets in this process, one per key, kept for the most recent `capacity`
    keys. A bucket holds at most `rate.calls` tokens and refills at the rate."""

    def __init__(self, *, capacity: int, clock: Callable[[], float] = time.monotonic) -> None:
        self._capacity = capacity
        self._clock = clock
        self._buckets: OrderedDict[Hashable, tuple[float, float]] = OrderedDict()

    def __len__(self) -> int:
        return len(self._buckets)

    def _tokens(self, key: Hashable, rate: Rate, now: float) -> float:
        tokens, last = self._buckets.get(key, (float(rate.calls), now))
        return min(float(rate.calls), tokens + (now - last) * rate.calls / rate.seconds)

    @staticmethod
    def _wait(tokens: float, rate: Rate) -> float:
        return 0.0 if tokens >= 1.0 else (1.0 - tokens) * rate.seconds / rate.calls

    def peek(self, key: Hashable, rate: Rate) -> float:
        """0.0 when the bucket holds a token, else the seconds until it does (nothing is
        stored: a key only peeked at takes no memory)."""
        return self._wait(self._tokens(key, rate, self._clock()), rate)

    def take(self, key: Hashable, rate: Rate) -> float:
        """Take a token: 0.0 when there was one, else the seconds until there is."""
        now = self._clock()
        tokens = self._tokens(key, rate, now)
        wait = self._wait(tokens, rate)
        self._buckets.pop(key, None)
        self._buckets[key] = (tokens - 1.0 if wait == 0.0 else tokens, now)
        if len(self._buckets) > self._capacity:
            self._buckets.popitem(last=False)
        return wait


class LocalRateLimiter(Limits):
    """Buckets in this process, kept for the most recent `capacity` keys."""

    def __init__(
        self,
        limits: Mapping[str, Rate],
        *,
        capacity: int = 100_000,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(limits)
        self._buckets = TokenBuckets(capacity=capacity, clock=clock)

    async def take(self, key: str, method: str) -> float:
        return self.take_now(key, method)

    def take_now(self, key: str, method: str) -> float:
        found = self.bucket(method)
        if found is None:
            return 0.0
        bucket, rate = found
        return self._buckets.take((key, bucket), rate)
