"""What a model call's usage row costs to keep: `SqlUsageLedger.record` on PostgreSQL,
through the database's one writer (group commit), as metering writes it after each call.

A fresh database on the machine's PostgreSQL (127.0.0.1:5432, dropped afterwards),
migrated. Measured in the same run:
- one writer: each record waits for its own commit (a transaction per row);
- WRITERS writers at once, each recording call after call: their rows share commits
  (the commits are counted, so the rows per commit are printed);
- the baseline: the ledger's same INSERT in a transaction of its own on the same engine,
  without the writer (what a commit per row costs the database), and the same with
  synchronous_commit off (what waiting for the WAL flush costs is the difference), and
  one round trip (`SELECT 1`): a commit through the pool takes four (the checkout's
  ping, BEGIN, INSERT, COMMIT);
- a busy server: while other RPCs are in flight the writer holds each commit
  HOLD_SECONDS for their writes first (`deferral.others_open`); one writer then.
The one-writer, baseline and busy samples are interleaved. Bounded in count and time.
"""

from __future__ import annotations

import asyncio
import secrets
import statistics
import time
from collections.abc import Awaitable, Callable, Mapping
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import event, text
from sqlalchemy.ext.asyncio import AsyncEngine
from sqlalchemy.sql.dml import UpdateBase

from records.usage.ledger import CallOutcome, ModelCall
from stores.sql.database import Database
from stores.sql.engine import migrate
from stores.sql.group_commit import HOLD_SECONDS, SqlWriter
from stores.usage.sql import SqlUsageLedger
from tests.helpers import fresh_postgres_database

ROWS = 500
"""Rows of each interleaved kind (one writer, baseline) and of the busy server."""
WRITERS = 50
ROUNDS = 20
"""Rows each of the WRITERS writes, one after the other."""
SECONDS = 60.0
"""Each phase stops after this long, however many rows it wrote."""


def _call(n: int) -> ModelCall:
    return ModelCall(
        call_id=secrets.token_hex(12),
        at=datetime.now(UTC),
        tenant="bench",
        task_id=f"task-{n % 97}",
        root_task_id=f"task-{n % 97}",
        user="alice",
        agent="researcher",
        agent_version=1,
        agents=("lead", "researcher"),
        provider="",
        model="gpt-4o",
        role="executor",
        outcome=CallOutcome.OK,
        prompt_tokens=1_200,
        cached_prompt_tokens=400,
        completion_tokens=300,
        cost_micros=4_600,
        latency_ms=850,
    )


class _CommitEach(SqlWriter):
    """The baseline: each statement in a transaction of its own, straight on the engine."""

    def __init__(self, engine: AsyncEngine, flushed: bool = True) -> None:
        super().__init__(engine)
        self.engine = engine
        self.flushed = flushed
        """False: the commit does not wait for its WAL to reach the disk (what the flush
        costs is the difference)."""

    async def execute(self, statement: UpdateBase, params: Mapping[str, Any] | None = None) -> int:
        async with self.engine.begin() as connection:
            if not self.flushed:
                await connection.execute(text("SET LOCAL synchronous_commit TO off"))
            result = await connection.execute(statement, params)
        return int(result.rowcount)


async def _round_trips(engine: AsyncEngine) -> list[float]:
    """A `SELECT 1` on a pooled connection: one round trip to PostgreSQL."""
    times = []
    async with engine.connect() as connection:
        for _ in range(ROWS):
            started = time.perf_counter()
            await connection.execute(text("SELECT 1"))
            times.append(time.perf_counter() - started)
    return times


async def _timed(write: Callable[[], Awaitable[Any]]) -> float:
    started = time.perf_counter()
    await write()
    return time.perf_counter() - started


async def _one_by_one(*ledgers: SqlUsageLedger) -> list[list[float]]:
    """Each ledger's rows written one at a time, the ledgers' writes interleaved."""
    times: list[list[float]] = [[] for _ in ledgers]
    until = time.monotonic() + SECONDS
    for n in range(ROWS):
        if time.monotonic() > until:
            break
        for ledger, kept in zip(ledgers, times, strict=True):
            kept.append(await _timed(lambda: ledger.record(_call(n))))  # noqa: B023
    return times


async def _at_once(ledger: SqlUsageLedger) -> tuple[list[float], float]:
    """Each row's seconds with WRITERS writing at once, and rows per second."""
    times: list[float] = []
    until = time.monotonic() + SECONDS

    async def writer(index: int) -> None:
        for n in range(ROUNDS):
            if time.monotonic() > until:
                return
            row = _call(index * ROUNDS + n)
            times.append(await _timed(lambda: ledger.record(row)))  # noqa: B023

    started = time.perf_counter()
    await asyncio.gather(*(writer(i) for i in range(WRITERS)))
    return times, len(times) / (time.perf_counter() - started)


def _ms(times: list[float], q: float = 0.5) -> float:
    """The median (q 0.5) or the q-th quantile (nearest rank) of `times`, in ms."""
    if q == 0.5:
        return statistics.median(times) * 1000
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _line(label: str, times: list[float], note: str = "") -> None:
    print(f"  {label:<40} p50 {_ms(times):.3f} ms  p99 {_ms(times, 0.99):.3f} ms{note}")


async def _figures(url: str) -> dict[str, Any]:
    database = Database.open(url)
    engine = database.engine
    commits = [0]

    def committed(_: object) -> None:
        commits[0] += 1

    event.listen(engine.sync_engine, "commit", committed)
    ledger = SqlUsageLedger(database)
    bare = SqlUsageLedger(Database(engine, _CommitEach(engine)))
    unflushed = SqlUsageLedger(Database(engine, _CommitEach(engine, flushed=False)))
    held = Database(engine, SqlWriter(engine, lambda: True))  # other RPCs in flight
    busy = SqlUsageLedger(held)
    try:
        for n in range(20):  # warm: connections open, statements cached
            for each in (ledger, bare, unflushed, busy):
                await each.record(_call(n))
        one, plain, lazy, waited = await _one_by_one(ledger, bare, unflushed, busy)
        trips = await _round_trips(engine)
        before = commits[0]
        crowd, rate = await _at_once(ledger)
        shared = commits[0] - before
    finally:
        await held.writer.close()
        await database.close()
    return {
        "one": one,
        "plain": plain,
        "unflushed": lazy,
        "trips": trips,
        "busy": waited,
        "crowd": crowd,
        "rate": rate,
        "per_commit": len(crowd) / max(1, shared),
    }


async def main() -> None:
    async with fresh_postgres_database() as url:
        await migrate(url)
        f = await _figures(url)
    p50 = _ms(f["one"])
    verdict = "met" if p50 <= 1.0 else f"MISSED by {p50 - 1.0:.3f} ms"
    print(
        f"Usage ledger: a model call's row on PostgreSQL ({len(f['one'])} rows one at a time, "
        "interleaved with the baseline and the busy writer)"
    )
    _line("one writer, through the group commit", f["one"], f"   (target p50 <= 1 ms: {verdict})")
    _line("baseline: INSERT in its own transaction", f["plain"])
    _line("  the same, commit not waiting for WAL", f["unflushed"], "   (synchronous_commit off)")
    _line("  one round trip (SELECT 1)", f["trips"])
    _line(
        f"{WRITERS} writers at once",
        f["crowd"],
        f"   {f['rate']:,.0f} rows/s, {f['per_commit']:.1f} rows per commit",
    )
    _line(
        "busy server (commit held first)",
        f["busy"],
        f"   (HOLD_SECONDS {HOLD_SECONDS * 1000:.0f} ms while other RPCs are in flight)",
    )
