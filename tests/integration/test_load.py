"""The load suite's burst, small: a few hundred tasks at once with a short model latency,
on the embedded defaults and on Redis + PostgreSQL. Counts only, never timings: every
task ends COMPLETED, every stream ends, no event is lost or repeated, nothing answers
INTERNAL, and the server holds a bounded number of Redis connections."""

from __future__ import annotations

import pytest

from bench.load.scenarios import Config, Result, burst

SMALL = Config(tasks=300, hold=0.5, slots=50, queue=50, cap=100.0)
"""Each task holds its slot about a second (two model calls): far longer than the 300 calls
take to arrive, so the burst is bigger than slots and queue and callers are refused."""


def _assert_whole(result: Result) -> None:
    assert result.submitted == 300
    assert (result.completed, result.failed, result.unended) == (300, 0, 0), result.errors[:3]
    assert result.internal == 0
    assert result.lost_or_repeated == 0
    assert result.retries > 0  # the burst was bigger than slots + queue: callers were refused


@pytest.mark.timeout(240)
async def test_a_burst_on_the_embedded_defaults_loses_nothing() -> None:
    _assert_whole(await burst(SMALL, name="small burst, embedded"))


@pytest.mark.redis
@pytest.mark.postgres
@pytest.mark.timeout(240)
async def test_a_burst_on_redis_and_postgres_loses_nothing_with_bounded_connections() -> None:
    # A pool of 8 for 300 streams and 100 tasks at once: followers hold no connection.
    config = Config(**{**SMALL.__dict__, "env": {"AGENTD_REDIS_MAX_CONNECTIONS": "8"}})
    result = await burst(config, shared=True, name="small burst, Redis + PostgreSQL")
    _assert_whole(result)
    assert 0 < result.footprint.peak_redis <= 8 + 3
