"""What a status change's webhook event costs: `WebhookOutboxWriter.task_status` on
PostgreSQL, through the database's one writer (group commit), as the engine awaits it
before it saves the change.

A fresh database on the machine's PostgreSQL (127.0.0.1:5432, dropped afterwards),
migrated. Measured in the same run, interleaved:
- one matching webhook: the event and its delivery written in one transaction (the
  target: p50 <= 1 ms);
- three matching webhooks (a delivery each, the payload once);
- a tenant whose webhooks want none of it: the cached list is read, nothing written;
- the floor this machine gives any commit: one row through the same writer (a commit
  through the pool: the checkout's ping, BEGIN, INSERT, COMMIT), and one round trip;
and then WRITERS tasks changing status at once (their writes share commits).
Bounded in count and time.
"""

from __future__ import annotations

import asyncio
import statistics
import time
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import text

from records.tasks import Task, TaskStatus
from records.webhooks import Webhook
from server.services.webhook_outbox import WebhookOutboxWriter
from stores.sql.database import Database
from stores.sql.engine import migrate
from stores.webhooks.sql import SqlWebhookStore
from stores.webhooks.sql_outbox import SqlWebhookOutbox
from stores.webhooks.tables import webhook_events
from tests.helpers import fresh_postgres_database

CHANGES = 500
"""Status changes of each interleaved kind."""
WRITERS = 50
ROUNDS = 20
SECONDS = 60.0
URL = "http://127.0.0.1:9/hook"


def _task(tenant: str, n: int) -> Task:
    task = Task(f"task_{tenant}_{n}", tenant, "alice", "6*7?", labels={"team": "a"})
    task.last_sequence = n
    return task


async def _webhooks(store: SqlWebhookStore) -> None:
    now = datetime.now(UTC)
    hooks = [
        Webhook("wh_one", "one", URL, created_at=now, secret="sealed"),
        *(
            Webhook(f"wh_three_{i}", "three", URL, created_at=now, secret="sealed")
            for i in range(3)
        ),
        Webhook("wh_none", "none", URL, ("task.failed",), created_at=now, secret="sealed"),
    ]
    for webhook in hooks:
        await store.create(webhook)


async def _change(writer: WebhookOutboxWriter, tenant: str, n: int) -> float:
    task = _task(tenant, n)
    started = time.perf_counter()
    await writer.task_status(task, TaskStatus.RUNNING, TaskStatus.PENDING)
    return time.perf_counter() - started


async def _floor(database: Database, n: int) -> tuple[float, float]:
    """One row through the writer, and one round trip (`SELECT 1`)."""
    row = {
        "event_id": f"floor_{n}",
        "tenant": "floor",
        "task_id": "task_floor",
        "event_type": "task.started",
        "created_at": datetime.now(UTC),
        "data": "{}",
    }
    started = time.perf_counter()
    await database.writer.insert(webhook_events, row)
    row_seconds = time.perf_counter() - started
    async with database.engine.connect() as connection:
        started = time.perf_counter()
        await connection.execute(text("SELECT 1"))
        return row_seconds, time.perf_counter() - started


async def _interleaved(writer: WebhookOutboxWriter, database: Database) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"one": [], "three": [], "none": [], "row": [], "trip": []}
    until = time.monotonic() + SECONDS
    for n in range(CHANGES):
        if time.monotonic() > until:
            break
        for tenant in ("one", "three", "none"):
            times[tenant].append(await _change(writer, tenant, 1_000 + n))
        row, trip = await _floor(database, n)
        times["row"].append(row)
        times["trip"].append(trip)
    return times


async def _at_once(writer: WebhookOutboxWriter) -> tuple[list[float], float]:
    times: list[float] = []
    until = time.monotonic() + SECONDS

    async def one(index: int) -> None:
        for n in range(ROUNDS):
            if time.monotonic() > until:
                return
            times.append(await _change(writer, "one", 100_000 + index * ROUNDS + n))

    started = time.perf_counter()
    await asyncio.gather(*(one(i) for i in range(WRITERS)))
    return times, len(times) / (time.perf_counter() - started)


def _ms(times: list[float], q: float = 0.5) -> float:
    if q == 0.5:
        return statistics.median(times) * 1000
    ordered = sorted(times)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000


def _line(label: str, times: list[float], note: str = "") -> None:
    print(f"  {label:<44} p50 {_ms(times):.3f} ms  p99 {_ms(times, 0.99):.3f} ms{note}")


async def _figures(url: str) -> dict[str, Any]:
    database = Database.open(url)
    store = SqlWebhookStore(database)
    writer = WebhookOutboxWriter(store, SqlWebhookOutbox(database), _no_task, 3600.0)
    try:
        await _webhooks(store)
        for n in range(20):  # warm: connections open, statements cached, lists read
            for tenant in ("one", "three", "none"):
                await _change(writer, tenant, n)
        times = await _interleaved(writer, database)
        crowd, rate = await _at_once(writer)
    finally:
        await database.close()
    return {**times, "crowd": crowd, "rate": rate}


async def _no_task(tenant: str, task_id: str) -> Task | None:
    return None


async def main() -> None:
    async with fresh_postgres_database() as url:
        await migrate(url)
        f = await _figures(url)
    p50 = _ms(f["one"])
    verdict = "met" if p50 <= 1.0 else f"MISSED by {p50 - 1.0:.3f} ms"
    print(
        f"Webhook outbox: a status change's event on PostgreSQL ({len(f['one'])} changes of "
        "each kind, interleaved)"
    )
    _line(
        "one matching webhook (event + delivery)", f["one"], f"   (target p50 <= 1 ms: {verdict})"
    )
    _line("three matching webhooks (event + 3 deliveries)", f["three"])
    _line("no webhook wants it (cached list only)", f["none"])
    _line("the floor: one row through the same writer", f["row"])
    _line("  one round trip (SELECT 1)", f["trip"])
    _line(f"{WRITERS} tasks changing status at once", f["crowd"], f"   {f['rate']:,.0f} changes/s")


if __name__ == "__main__":
    asyncio.run(main())
