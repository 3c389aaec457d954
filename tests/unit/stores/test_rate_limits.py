"""Token buckets: bursts, refill, separate keys and methods, parsing."""

from __future__ import annotations

import pytest

from stores.rate_limits.base import Rate, parse_limits
from stores.rate_limits.memory import InMemoryRateLimiter


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_full_bucket_allows_a_burst_then_refills_at_the_rate() -> None:
    clock = Clock()
    limiter = InMemoryRateLimiter(parse_limits("Execute=3/m,*=100/s"), clock=clock)
    assert [limiter.take_now("alice", "Execute") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limiter.take_now("alice", "Execute") == pytest.approx(20.0)  # one token per 20 s
    assert limiter.take_now("bob", "Execute") == 0.0  # another key, another bucket
    assert limiter.take_now("alice", "CallTool") == 0.0  # '*' covers the other methods
    clock.now += 19.9
    assert limiter.take_now("alice", "Execute") == pytest.approx(0.1, abs=1e-6)
    clock.now += 0.2
    assert limiter.take_now("alice", "Execute") == 0.0
    clock.now += 3600
    assert [limiter.take_now("alice", "Execute") for _ in range(4)][-1] > 0  # never above 3


def test_no_limit_without_a_rate_and_bounded_memory() -> None:
    limiter = InMemoryRateLimiter(parse_limits("Execute=1/s"), capacity=10)
    assert all(limiter.take_now("k", "CallTool") == 0.0 for _ in range(1000))
    for n in range(100):
        limiter.take_now(f"key-{n}", "Execute")
    assert len(limiter._buckets) == 10


@pytest.mark.parametrize(
    ("text", "rate"),
    [
        ("100/m", Rate(100, 60)),
        ("10/s", Rate(10, 1)),
        ("30/10s", Rate(30, 10)),
        ("5/h", Rate(5, 3600)),
    ],
)
def test_rates_parse(text: str, rate: Rate) -> None:
    assert Rate.parse(text) == rate


@pytest.mark.parametrize(
    "text", ["Execute", "Execute=", "=1/s", "Execute=0/s", "Execute=1/d", "x=y"]
)
def test_bad_limits_are_refused(text: str) -> None:
    with pytest.raises(ValueError, match="rate"):
        parse_limits(text)
