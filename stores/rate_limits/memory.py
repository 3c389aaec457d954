"""Token buckets in this process."""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Callable, Hashable, Mapping

from stores.rate_limits.base import Limits, Rate


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


class InMemoryRateLimiter(Limits):
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
