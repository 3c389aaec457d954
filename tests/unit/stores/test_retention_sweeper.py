"""The retention sweeper's loop: batches until one is short (and no more than its bound),
each rule's own cutoff, rules kept for ever left out, and a failing sweep that does not
stop the loop. The SQL records it sweeps: tests/contract/test_retention.py."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta

import pytest

from stores.retention.sweeper import RetentionSweeper, Rule

NOW = datetime(2026, 12, 1, tzinfo=UTC)


class Records:
    def __init__(self, name: str, left: int, fail: int = 0) -> None:
        self.name = name
        self.left = left
        self.fail = fail
        self.calls: list[tuple[datetime, int]] = []

    async def sweep(self, before: datetime, limit: int) -> int:
        self.calls.append((before, limit))
        if self.fail:
            self.fail -= 1
            raise ConnectionError("the database is away")
        gone = min(limit, self.left)
        self.left -= gone
        return gone


async def test_each_rule_sweeps_its_own_cutoff_in_batches_until_one_is_short() -> None:
    tasks, versions, forever = Records("tasks", 7), Records("versions", 4), Records("kept", 9)
    sweeper = RetentionSweeper(
        [Rule(tasks, 3600), Rule(versions, 60), Rule(forever, 0)], batch=3, clock=lambda: NOW
    )
    assert await sweeper.sweep() == {"tasks": 7, "versions": 4}
    assert tasks.calls == [(NOW - timedelta(hours=1), 3)] * 3  # 3, 3, 1
    assert versions.calls == [(NOW - timedelta(minutes=1), 3)] * 2  # 3, 1
    assert forever.calls == []


async def test_a_sweep_stops_at_its_bound_and_the_next_goes_on() -> None:
    many = Records("tasks", 10)
    sweeper = RetentionSweeper([Rule(many, 1)], batch=2, max_batches=3, clock=lambda: NOW)
    assert await sweeper.sweep() == {"tasks": 6}
    assert await sweeper.sweep() == {"tasks": 4}


async def test_the_loop_goes_on_after_a_failed_sweep() -> None:
    flaky = Records("tasks", 5, fail=2)
    sweeper = RetentionSweeper([Rule(flaky, 1)], interval_seconds=0.001, clock=lambda: NOW)
    loop = asyncio.create_task(sweeper.run())
    for _ in range(1000):
        if flaky.left == 0:
            break
        await asyncio.sleep(0.001)
    loop.cancel()
    with pytest.raises(asyncio.CancelledError):
        await loop
    assert flaky.left == 0
    assert len(flaky.calls) >= 3  # two failures, then the sweep that took them all


def test_a_sweeper_needs_positive_bounds() -> None:
    with pytest.raises(ValueError, match="positive"):
        RetentionSweeper([], batch=0)
