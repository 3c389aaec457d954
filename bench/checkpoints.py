"""What durability costs per step: one checkpoint write (what the engine does after each
completed step when tasks can be taken over), on SQLite and PostgreSQL, against the
in-process store measured in the same run.

The checkpoint is a function-calling task after five tool rounds (about 4 KB of
JSON). PostgreSQL is the machine's server on 127.0.0.1:5432 (database `test`,
a schema of the run's own, dropped afterwards). Bounded in count.
"""

from __future__ import annotations

import secrets
import statistics
import tempfile
import time
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import create_async_engine

from core.identity import Principal
from records import serialization
from records.checkpoints import RunCheckpoint
from records.messages import Message, ToolCall
from records.tasks import TokenUsage
from stores.checkpoints.base import CheckpointStore
from stores.checkpoints.memory import InMemoryCheckpointStore
from stores.checkpoints.sql import SqlCheckpointStore
from stores.sql.database import Database
from stores.sql.engine import create_engine, migrate

SAVES = 300
POSTGRES_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/test"


def _state() -> str:
    messages = [Message("system", "You are agentd. " * 20), Message("user", "work " * 40)]
    for i in range(5):
        call = ToolCall(f"call_{i}", "calculator", f'{{"expression": "{i}*7"}}')
        messages += [
            Message("assistant", "", (call,)),
            Message("tool", str(i * 7) * 40, tool_call_id=call.id),
        ]
    checkpoint = RunCheckpoint(
        Principal("svc", "tenant"),
        200_000,
        time.time() + 600,
        TokenUsage(900, 300),
        5,
        notes=tuple(f"calculator({i}*7) -> {i * 7}" for i in range(5)),
        mode_state={
            "messages": messages,
            "iteration": 6,
            "used_tools": True,
            "recent": [],
            "pending": (),
        },
    )
    return serialization.dumps(checkpoint)


async def _saves(store: CheckpointStore, state: str) -> list[float]:
    times = []
    for i in range(SAVES):
        started = time.perf_counter()
        await store.save("tenant", f"task-{i % 10}", state)
        times.append(time.perf_counter() - started)
    return times


async def main() -> None:
    state = _state()
    memory = await _saves(InMemoryCheckpointStore(), state)
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"
        await migrate(url)
        database = Database.open(url)
        try:
            sqlite = await _saves(SqlCheckpointStore(database), state)
        finally:
            await database.close()
    schema = f"agentd_bench_{secrets.token_hex(4)}"
    admin = create_async_engine(POSTGRES_URL)
    async with admin.begin() as connection:
        await connection.execute(text(f'CREATE SCHEMA "{schema}"'))
    try:
        await migrate(POSTGRES_URL, schema)
        database = Database(create_engine(POSTGRES_URL, schema=schema))
        try:
            postgres = await _saves(SqlCheckpointStore(database), state)
        finally:
            await database.close()
    finally:
        async with admin.begin() as connection:
            await connection.execute(text(f'DROP SCHEMA "{schema}" CASCADE'))
        await admin.dispose()
    base = statistics.median(memory)
    print(f"Checkpoint per completed step ({len(state):,} bytes; {SAVES} saves each)")
    for name, times in (("SQLite", sqlite), ("PostgreSQL", postgres)):
        p50 = statistics.median(times)
        print(
            f"  {name:<11} p50 {p50 * 1000:.3f} ms   vs in-process {base * 1000:.4f} ms   "
            f"adds {(p50 - base) * 1000:.3f} ms per step"
        )
