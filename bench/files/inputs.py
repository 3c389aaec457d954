"""What a 1 MB image part adds to starting a task: `StartTask` with one PNG part of
1,000,000 bytes against the same text-only `StartTask`, interleaved call by call on one
server, p50 of each and the difference (target: at most 20 ms). The part's share that is
the store write (the artifact written before the task is queued) is timed inside the
server, around the artifact store the engine keeps parts in.

Per store: the embedded one (live state in the process, SQLite) and, when they answer,
Redis (127.0.0.1:6379, a prefix of the run's own) with PostgreSQL (a database of the
run's own on 127.0.0.1:5432, dropped afterwards). A scripted model answers at once.
Bounded in count and time.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import secrets
import statistics
import tempfile
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import grpc
from PIL import Image

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import artifacts_pb2, tasks_pb2
from server import logs
from server.app import AgentdServer
from server.settings import Settings
from stores.artifacts.base import ArtifactInfo, ArtifactStore

RUNS = 60
TIME_CAP_SECONDS = 40.0
TARGET_MS = 20.0
SETTLE_SECONDS = 0.05
"""Untimed, after each task ended: its last writes (history, audit) are done before the
next call is timed."""
REDIS_URL = "redis://127.0.0.1:6379/0"
POSTGRES_ADMIN_URL = "postgresql+asyncpg://postgres@127.0.0.1:5432/postgres"


def image_of(size: int) -> bytes:
    """A PNG of noise (it does not compress), about `size` bytes."""
    side = int((size / 3) ** 0.5)
    out = io.BytesIO()
    Image.frombytes("RGB", (side, side), os.urandom(side * side * 3)).save(out, format="PNG")
    return out.getvalue()


class TimedWrites:
    """The engine's artifact store, each write timed."""

    def __init__(self, inner: ArtifactStore) -> None:
        self.inner = inner
        self.seconds: list[float] = []

    async def write(self, *args: Any) -> ArtifactInfo:
        started = time.perf_counter()
        try:
            return await self.inner.write(*args)
        finally:
            self.seconds.append(time.perf_counter() - started)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


async def _measure(address: str, image: bytes) -> dict[str, list[float]]:
    channel = grpc.aio.insecure_channel(
        address, options=[("grpc.max_send_message_length", 16 * 1024 * 1024)]
    )
    stub = pb_grpc.AgentServiceStub(channel)
    mode = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
    part = artifacts_pb2.InputPart(media_type="image/png", data=image)
    calls = {
        "text": pb.ExecuteRequest(task="What is in the picture?", mode=mode),
        "image": pb.ExecuteRequest(task="What is in the picture?", mode=mode, parts=[part]),
    }
    times: dict[str, list[float]] = {name: [] for name in calls}
    try:
        for request in calls.values():  # warm: the connection, the caches
            await _ended(stub, (await stub.StartTask(request)).task_id)
        begun = time.perf_counter()
        for _ in range(RUNS):
            for name, request in calls.items():
                started = time.perf_counter()
                task = await stub.StartTask(request)
                times[name].append(time.perf_counter() - started)
                # Untimed: the task ends (and writes its end) before the next one starts.
                await _ended(stub, task.task_id)
                await asyncio.sleep(SETTLE_SECONDS)
            if time.perf_counter() - begun > TIME_CAP_SECONDS:
                break
    finally:
        await channel.close(None)
    return times


async def _ended(stub: pb_grpc.AgentServiceStub, task_id: str) -> None:
    events: Any = stub.StreamTaskEvents(pb.StreamTaskEventsRequest(task_id=task_id))
    async for _ in events:
        pass


async def _one_store(folder: Path, image: bytes, **storage: Any) -> tuple[dict[str, Any], int]:
    async with FakeOpenAIServer([{"text": "A picture.", "repeat": -1}]) as llm:
        settings = Settings(
            address="127.0.0.1:0",
            workspace_dir=folder,
            llm_base_url=llm.base_url,
            llm_model="m",
            llm_api_key="k",
            critic_policy="off",
            log_level="error",
            auth="off",
            tool_permission="write",
            rate_limits="",
            tenant_rate_limits="",
            metrics_address="",
            max_queued_tasks=1000,
            **storage,
        )
        server = await AgentdServer.start(settings)
        try:
            inputs = server.engine.inputs
            assert inputs is not None
            timed = TimedWrites(inputs.store)
            inputs.store = timed
            found = await _measure(f"127.0.0.1:{server.port}", image)
        finally:
            await server.shutdown(grace=0)
    return {**found, "write": timed.seconds[1:]}, len(found["text"])


@contextlib.asynccontextmanager
async def _postgres() -> AsyncIterator[str | None]:
    """A database of the run's own, or None when PostgreSQL does not answer."""
    from sqlalchemy import text
    from sqlalchemy.ext.asyncio import create_async_engine

    name = f"agentd_bench_{secrets.token_hex(4)}"
    admin = create_async_engine(POSTGRES_ADMIN_URL, isolation_level="AUTOCOMMIT")
    try:
        async with admin.connect() as connection:
            await connection.execute(text(f'CREATE DATABASE "{name}"'))
    except OSError:
        await admin.dispose()
        yield None
        return
    try:
        yield f"postgresql+asyncpg://postgres@127.0.0.1:5432/{name}"
    finally:
        async with admin.connect() as connection:
            await connection.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        await admin.dispose()


async def _redis_answers() -> bool:
    import redis.asyncio as redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        return bool(await client.ping())
    except (OSError, redis.RedisError):
        return False
    finally:
        await client.aclose()


def _report(store: str, found: dict[str, list[float]], runs: int) -> None:
    text, with_image = statistics.median(found["text"]), statistics.median(found["image"])
    added = (with_image - text) * 1000
    write = statistics.median(found["write"]) * 1000
    share = f"{write / added:.0%}" if added > 0 else "n/a"
    verdict = "within" if added <= TARGET_MS else "OVER"
    print(
        f"  {store:<20} text-only p50 {text * 1000:6.2f} ms, with the image"
        f" {with_image * 1000:6.2f} ms: added {added:5.2f} ms ({verdict} {TARGET_MS:.0f} ms);"
        f" store write p50 {write:5.2f} ms ({share} of it); {runs} tasks each"
    )


async def main() -> None:
    logs.configure("error")
    image = image_of(1_000_000)
    print(f"Input parts: StartTask with one {len(image):,}-byte PNG part against text only")
    with tempfile.TemporaryDirectory() as folder:
        embedded = Path(folder) / "embedded"
        embedded.mkdir()
        url = f"sqlite+aiosqlite:///{embedded / 'agentd.db'}"
        found, runs = await _one_store(embedded, image, database_url=url)
        _report("in-process + SQLite", found, runs)
        if not await _redis_answers():
            print("  Redis + PostgreSQL: Redis does not answer at 127.0.0.1:6379; skipped")
            return
        async with _postgres() as database_url:
            if database_url is None:
                print("  Redis + PostgreSQL: PostgreSQL does not answer; skipped")
                return
            shared = Path(folder) / "shared"
            shared.mkdir()
            prefix = f"agentd-bench-{secrets.token_hex(4)}:"
            found, runs = await _one_store(
                shared, image, database_url=database_url, redis_url=REDIS_URL, redis_prefix=prefix
            )
            _report("Redis + PostgreSQL", found, runs)
            await _forget(prefix)


async def _forget(prefix: str) -> None:
    import redis.asyncio as redis

    client = redis.Redis.from_url(REDIS_URL)
    try:
        keys = [key async for key in client.scan_iter(match=f"{prefix}*", count=1000)]
        for start in range(0, len(keys), 500):
            await client.delete(*keys[start : start + 500])
    finally:
        await client.aclose()
