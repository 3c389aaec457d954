"""The load scenarios: burst (embedded, Redis + PostgreSQL, two replicas), soak, kill and
memory (the baseline, the same burst without agentd, is `plain_loop`).

Each returns a `Result` with the counts the targets are judged on (failed, INTERNAL,
unended streams, lost or repeated events: all must be 0) and the figures reported
(throughput against the capacity the limits allow, latency, memory, Redis connections).
Every loop is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import os
import secrets
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from bench.load import processes
from bench.load.gateway import Gateway, Outcome


@dataclass(frozen=True)
class Config:
    tasks: int = 1000
    hold: float = 2.0
    """Seconds the fake model holds each call (a task makes two)."""
    slots: int = 100
    queue: int = 100
    cap: float = 300.0
    """Seconds a task may take, retries included, before its stream counts as unended."""
    env: Mapping[str, str] = field(default_factory=dict)
    """Extra settings for every server."""


@dataclass
class Footprint:
    """What a run took of the machine."""

    peak_rss_kib: int = 0
    idle_rss_kib: int = 0
    peak_in_flight: int = 0
    peak_redis: int = 0
    """Redis connections at the busiest moment."""
    cpu: dict[str, float] = field(default_factory=dict)
    """CPU seconds used during the run: the servers, the fake model, this client."""


@dataclass
class Result:
    name: str
    submitted: int = 0
    completed: int = 0
    failed: int = 0
    internal: int = 0
    unended: int = 0
    lost_or_repeated: int = 0
    repeated_calls: int = 0
    """Non-idempotent tool calls that reached their server more than once (kill)."""
    retries: int = 0
    resumes: int = 0
    wall: float = 0.0
    latencies: list[float] = field(default_factory=list)
    capacity: float = 0.0
    """Tasks per second the limits allow: slots x replicas / the latency of one task alone."""
    footprint: Footprint = field(default_factory=lambda: Footprint())
    """What the run took of the machine: memory, tasks in flight, connections, CPU."""
    errors: list[str] = field(default_factory=list)

    @property
    def throughput(self) -> float:
        return self.completed / self.wall if self.wall else 0.0

    @property
    def per_task_kib(self) -> float:
        used = self.footprint
        growth = used.peak_rss_kib - used.idle_rss_kib
        return growth / used.peak_in_flight if used.peak_in_flight else 0.0

    @property
    def correct(self) -> bool:
        return not (
            self.failed
            or self.internal
            or self.unended
            or self.lost_or_repeated
            or self.repeated_calls
            or self.completed != self.submitted
        )

    def count(self, outcomes: list[Outcome]) -> None:
        self.submitted += len(outcomes)
        for outcome in outcomes:
            self.completed += outcome.status == "completed"
            self.failed += outcome.status in ("failed", "cancelled")
            self.unended += outcome.status == "unended"
            self.internal += outcome.internal
            self.lost_or_repeated += outcome.lost_or_repeated
            self.retries += outcome.retries
            self.resumes += outcome.resumes
            if outcome.status == "completed":
                self.latencies.append(outcome.latency)
            self.errors.extend(outcome.errors[:1])

    def percentile(self, q: float) -> float:
        if not self.latencies:
            return 0.0
        ordered = sorted(self.latencies)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def _settings(config: Config, model: processes.Child) -> dict[str, str]:
    return {
        "AGENTD_LLM_BASE_URL": model.address,
        "AGENTD_MAX_RUNNING_TASKS": str(config.slots),
        "AGENTD_MAX_QUEUED_TASKS": str(config.queue),
        "AGENTD_MAX_CONCURRENT_LLM_CALLS": str(config.slots),
        **config.env,
    }


async def _stubs(stack: AsyncExitStack, servers: list[processes.Child]) -> list[Any]:
    stubs: list[Any] = []
    for server in servers:
        channel = grpc.aio.insecure_channel(server.address)
        stack.push_async_callback(channel.close, None)
        stubs.append(pb_grpc.AgentServiceStub(channel))
    return stubs


async def _alone(gateway: Gateway) -> float:
    """The latency of one task with the servers otherwise idle: one task on each replica in
    turn (so that every replica is warm when the load starts, as a serving one is), and
    the mean of their latencies."""
    latencies = []
    for n in range(len(gateway.stubs)):  # the gateway sends task n to replica n % replicas
        outcome = await gateway.run(n, "warm up: job-warmup", f"warmup-{secrets.token_hex(4)}")
        if outcome.status != "completed":
            raise RuntimeError(f"a single task did not complete: {outcome}")
        latencies.append(outcome.latency)
    return statistics.mean(latencies)


async def _measure(
    result: Result,
    servers: list[processes.Child],
    model: processes.Child,
    gateway: Gateway,
    work: Callable[[], Awaitable[list[Outcome]]],
) -> None:
    pids = [s.pid for s in servers]
    result.footprint.idle_rss_kib = sum(processes.rss_kib(p) for p in pids)
    stop = asyncio.Event()
    sampler = asyncio.create_task(processes.sample(pids, stop))
    watched = {"servers": pids, "model": [model.pid], "client": [os.getpid()]}
    before = {k: sum(processes.cpu_seconds(p) for p in v) for k, v in watched.items()}
    started = time.monotonic()
    outcomes = await work()
    result.wall = time.monotonic() - started
    result.footprint.cpu = {
        k: sum(processes.cpu_seconds(p) for p in v) - before[k] for k, v in watched.items()
    }
    stop.set()
    result.footprint.peak_rss_kib, result.footprint.peak_redis = await sampler
    result.footprint.peak_in_flight = gateway.peak_in_flight
    result.count(outcomes)


async def burst(
    config: Config, replicas: int = 1, shared: bool = False, name: str = "burst"
) -> Result:
    """`config.tasks` Execute calls at once, each followed to its end; the gateway retries
    after RESOURCE_EXHAUSTED (its RetryInfo delay) and alternates between the replicas."""
    result = Result(name)
    run = secrets.token_hex(4)
    with tempfile.TemporaryDirectory(prefix="agentd-load-") as folder:
        async with AsyncExitStack() as stack:
            model = processes.start_model(Path(folder), config.hold)
            stack.callback(model.stop)
            settings = _settings(config, model)
            if shared:
                settings.update(await stack.enter_async_context(processes.shared_stores()))
            servers = []
            for index in range(replicas):
                server = processes.start_server(
                    f"agentd-{index}", Path(folder) / str(index), settings
                )
                stack.callback(server.stop)
                servers.append(server)
            stubs = await _stubs(stack, servers)
            gateway = Gateway(stubs, cap=config.cap)
            alone = await _alone(gateway)
            result.capacity = config.slots * replicas / alone

            async def work() -> list[Outcome]:
                return await asyncio.gather(
                    *(
                        gateway.run(n, f"job-{run}-{n}: what is 40+2?", f"{run}-{n}")
                        for n in range(config.tasks)
                    )
                )

            await _measure(result, servers, model, gateway, work)
    return result


async def soak(
    config: Config, streams: int = 500, seconds: float = 60.0, slow_share: float = 0.1
) -> Result:
    """`streams` concurrent streams for `seconds`, a new task started as each one ends;
    a share of the readers read slowly."""
    result = Result("soak")
    run = secrets.token_hex(4)
    with tempfile.TemporaryDirectory(prefix="agentd-load-") as folder:
        async with AsyncExitStack() as stack:
            model = processes.start_model(Path(folder), config.hold)
            stack.callback(model.stop)
            server = processes.start_server("agentd", Path(folder), _settings(config, model))
            stack.callback(server.stop)
            stubs = await _stubs(stack, [server])
            fast = Gateway(stubs, cap=config.cap)
            slow = Gateway(stubs, cap=config.cap, slow_reader=0.05)
            result.capacity = config.slots / await _alone(fast)
            until = time.monotonic() + seconds

            async def worker(index: int) -> list[Outcome]:
                gateway = slow if index < streams * slow_share else fast
                done: list[Outcome] = []
                while time.monotonic() < until and len(done) < 10_000:
                    n = index * 10_000 + len(done)
                    done.append(await gateway.run(n, f"job-{run}-{n}: what is 40+2?", f"{run}-{n}"))
                return done

            async def work() -> list[Outcome]:
                batches = await asyncio.gather(*(worker(i) for i in range(streams)))
                return [o for batch in batches for o in batch]

            await _measure(result, [server], model, fast, work)
            result.footprint.peak_in_flight = fast.peak_in_flight + slow.peak_in_flight
    return result


async def kill(config: Config, tasks: int = 200) -> Result:
    """Two replicas on Redis + PostgreSQL; `tasks` in flight; kill -9 of one. Every task
    must end on the other, every stream be resumed to its end, and no task's
    non-idempotent call (an http_request POST) reach its server twice."""
    result = Result("kill")
    run = secrets.token_hex(4)
    with (
        tempfile.TemporaryDirectory(prefix="agentd-load-") as folder,
        processes.recording_server() as recorder,
    ):
        async with AsyncExitStack() as stack:
            model = processes.start_model(Path(folder), config.hold, post=recorder.url)
            stack.callback(model.stop)
            settings = _settings(config, model)
            settings.update(await stack.enter_async_context(processes.shared_stores()))
            settings.update(
                {"AGENTD_HTTP_ALLOWED_NETWORKS": "127.0.0.1/32", "AGENTD_LEASE_SECONDS": "3"}
            )
            servers = [
                processes.start_server(f"agentd-{i}", Path(folder) / str(i), settings)
                for i in range(2)
            ]
            for server in servers:
                stack.callback(server.stop)
            gateway = Gateway(await _stubs(stack, servers), cap=config.cap)
            result.capacity = 2 * config.slots / await _alone(gateway)

            async def work() -> list[Outcome]:
                jobs = [
                    asyncio.create_task(gateway.run(n, f"job-{run}-{n}: record this", f"{run}-{n}"))
                    for n in range(tasks)
                ]
                for _ in range(int(config.cap * 10)):  # until every task is in flight
                    if gateway.in_flight >= tasks:
                        break
                    await asyncio.sleep(0.1)
                await asyncio.sleep(config.hold / 2)  # mid model call, some mid tool call
                servers[0].kill()
                return list(await asyncio.gather(*jobs))

            await _measure(result, servers[1:], model, gateway, work)
    repeated = {
        body: n for body, n in recorder.bodies.items() if body.startswith(f"job-{run}") and n > 1
    }
    result.repeated_calls = sum(n - 1 for n in repeated.values())
    return result


async def memory(config: Config, llm_calls: int | None = None) -> Result:
    """Memory per in-flight task on the embedded defaults: `config.tasks` tasks all waiting
    on the model (held for `config.hold` seconds, longer than it takes to start them all),
    RSS sampled once every task is in flight. With `llm_calls`, that many may hold an open
    request to the model at once (the default cap lets the rest wait their turn)."""
    cap = f"model-call cap {llm_calls}" if llm_calls else "default model-call cap"
    result = Result(f"memory, {config.tasks} tasks waiting on the model ({cap})")
    run = secrets.token_hex(4)
    env = dict(config.env)
    if llm_calls:
        env["AGENTD_MAX_CONCURRENT_LLM_CALLS"] = str(llm_calls)
    with tempfile.TemporaryDirectory(prefix="agentd-load-") as folder:
        async with AsyncExitStack() as stack:
            model = processes.start_model(Path(folder), config.hold)
            stack.callback(model.stop)
            settings = {
                **_settings(config, model),
                "AGENTD_MAX_RUNNING_TASKS": str(config.tasks),
                "AGENTD_MAX_QUEUED_TASKS": "0",
                **env,
            }
            server = processes.start_server("agentd", Path(folder), settings)
            stack.callback(server.stop)
            gateway = Gateway(await _stubs(stack, [server]), cap=config.cap)
            await _alone(gateway)  # warm: every code path loaded before the idle sample
            result.footprint.idle_rss_kib = processes.rss_kib(server.pid)
            jobs = [
                asyncio.create_task(gateway.run(n, f"job-{run}-{n}: 40+2?", f"{run}-{n}"))
                for n in range(config.tasks)
            ]
            for _ in range(int(config.hold * 10)):  # until every task is in flight
                if gateway.in_flight >= config.tasks:
                    break
                await asyncio.sleep(0.1)
            await asyncio.sleep(min(2.0, config.hold / 4))  # settled, still waiting
            result.footprint.peak_in_flight = gateway.in_flight
            result.footprint.peak_rss_kib = processes.rss_kib(server.pid)
            result.count(list(await asyncio.gather(*jobs)))
    return result


def median(values: list[float]) -> float:
    return statistics.median(values) if values else 0.0
