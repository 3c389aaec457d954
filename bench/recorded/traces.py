"""What keeping a task's durable trace costs (`agent.recording`), with the trace store on
PostgreSQL (a fresh database on 127.0.0.1:5432, migrated, dropped afterwards), against
no trace, in one run:
- per model call: the engine bench's function-calling task (`bench.engine`: FC_TURNS tool
  calls, then the answer) with traces on and off; its overhead is its wall time minus a
  bare replay of the same requests, divided by its model calls. The difference of the two
  medians is what keeping the trace adds to a call (target: at most 1 ms). The trace is
  written beside the run by the recorder's one writer task (group commit); the task's
  end waits for its trace, so that wait is in the figure;
- per step: the plan-and-execute chain's overhead per step, traces on against off
  (target: at most x1.10), an engine per variant;
- the store's own write (one batch: what the writer commits for a task at a time), p50;
- the same with the in-memory trace store: what the recording costs without a database.
The variants' runs are interleaved, their order turned each run, so drift on a busy
machine hits them alike. Bounded in count.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import datetime
from functools import partial
from pathlib import Path

import openai

from agent.engine import Engine
from agent.limits import EngineConfig, PlanPolicy
from agent.llm.fakes.server import FakeOpenAIServer
from agent.llm.openai import OpenAIModel
from agent.llm.roles import ModelRoles
from agent.parts import EngineParts
from agent.recording.traces import Traces
from bench.engine import FC_TURNS, STEPS, fc_script, pe_script, replay_times, run_task
from records.execution import ExecutionMode
from records.requests import TaskRequest
from records.traces.model import TracedMessage, TraceEntry, TraceHead, TraceOwner, TracePage
from server import logs
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.sql.database import Database
from stores.sql.engine import migrate
from stores.tasks.base import TaskStore
from stores.tasks.memory import InMemoryTaskStore
from stores.traces.base import TraceStore
from stores.traces.memory import InMemoryTraceStore
from stores.traces.sql import SqlTraceStore
from tests.helpers import fresh_postgres_database

RUNS = 30
"""Tasks of each variant, for each kind of task."""
CALL_TARGET_MS = 1.0
STEP_TARGET = 1.10
MODEL_CALLS = FC_TURNS + 1
"""The function-calling task's model calls: one per tool call, then the answer."""


class _Timed:
    """A trace store that keeps how long each write took (the writer's batches)."""

    def __init__(self, store: TraceStore) -> None:
        self._store = store
        self.writes: list[float] = []

    async def write(
        self,
        owner: TraceOwner,
        entries: Sequence[TraceEntry],
        messages: Sequence[TracedMessage],
        *,
        cut: bool = False,
        fresh: bool = False,
    ) -> None:
        started = time.perf_counter()
        await self._store.write(owner, entries, messages, cut=cut, fresh=fresh)
        self.writes.append(time.perf_counter() - started)

    async def head(self, task_id: str) -> TraceHead | None:
        return await self._store.head(task_id)

    async def page(self, task_id: str, after: str, limit: int) -> TracePage:
        return await self._store.page(task_id, after, limit)

    async def children(self, task_id: str) -> list[str]:
        return await self._store.children(task_id)

    async def sweep(self, before: datetime, limit: int) -> int:
        return await self._store.sweep(before, limit)

    async def forget_user(self, tenant: str, user: str) -> int:
        return await self._store.forget_user(tenant, user)


def _engine(base_url: str, workspace: Path, store: TaskStore, traces: Traces | None) -> Engine:
    """The engine bench's engine (`bench.engine.engine_on`), its traces kept or not."""
    model = OpenAIModel(
        "m", client=openai.AsyncOpenAI(base_url=base_url, api_key="k", max_retries=0)
    )
    registry = build_registry(
        Settings(workspace_dir=workspace, tool_permission="write"), InMemoryAuditLog()
    )
    return Engine(
        ModelRoles(default=model),
        registry,
        EngineParts(store, traces=traces),
        EngineConfig(plan=PlanPolicy(critic_policy="off")),
    )


def _turned(items: list[str], run: int) -> list[str]:
    shift = run % len(items)
    return items[shift:] + items[:shift]


async def _overhead(
    llm: FakeOpenAIServer, replay_url: str, run: Callable[[], Awaitable[None]]
) -> float:
    """What one task took beyond a bare replay of its requests (wall time)."""
    before = len(llm.requests)
    wall = time.perf_counter()
    await run()
    wall = time.perf_counter() - wall
    bare, _ = await replay_times(replay_url, llm.requests[before:])
    return wall - bare


async def _task(workspace: Path, traces: Traces | None) -> float:
    """One function-calling task on fresh fake servers: its overhead per model call."""
    async with (
        FakeOpenAIServer(fc_script()) as llm,
        FakeOpenAIServer(fc_script()) as replay_llm,
    ):
        store = InMemoryTaskStore()
        engine = _engine(llm.base_url, workspace, store, traces)
        request = TaskRequest(
            goal="FC-TASK", mode=ExecutionMode.FUNCTION_CALLING, max_iterations=FC_TURNS + 1
        )
        try:
            run = partial(run_task, engine, store, request)
            return await _overhead(llm, replay_llm.base_url, run) / MODEL_CALLS
        finally:
            await engine.close()


async def _calls(workspace: Path, variants: dict[str, Traces | None]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {name: [] for name in variants}
    for traces in variants.values():  # warm: code paths loaded, statements cached
        await _task(workspace, traces)
    for run in range(RUNS):
        for name in _turned(list(variants), run):
            out[name].append(await _task(workspace, variants[name]))
    return out


async def _steps(workspace: Path, variants: dict[str, Traces | None]) -> dict[str, list[float]]:
    """The plan-and-execute chain's overhead per step, an engine per variant."""
    out: dict[str, list[float]] = {name: [] for name in variants}
    request = TaskRequest(goal="PE-TASK", mode=ExecutionMode.PLAN_AND_EXECUTE, max_iterations=10)
    async with FakeOpenAIServer(pe_script()) as llm:
        runs: dict[str, Callable[[], Awaitable[None]]] = {}
        engines = []
        for name, traces in variants.items():
            store = InMemoryTaskStore()
            engine = _engine(llm.base_url, workspace, store, traces)
            engines.append(engine)
            runs[name] = partial(run_task, engine, store, request)
            await runs[name]()  # warm up
        try:
            for run in range(RUNS):
                for name in _turned(list(variants), run):
                    out[name].append(await _overhead(llm, llm.base_url, runs[name]) / STEPS)
        finally:
            for engine in engines:
                await engine.close()
    return out


def _ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


async def main() -> None:
    logs.configure("error")
    async with fresh_postgres_database() as url:
        await migrate(url)
        database = Database.open(url)
        store = _Timed(SqlTraceStore(database))
        variants: dict[str, Traces | None] = {
            "off": None,
            "memory": Traces(InMemoryTraceStore()),
            "postgres": Traces(store),
        }
        try:
            with tempfile.TemporaryDirectory() as tmp:
                calls = await _calls(Path(tmp), variants)
                steps = await _steps(Path(tmp), variants)
        finally:
            await database.close()
    added = _ms(calls["postgres"]) - _ms(calls["off"])
    verdict = "met" if added <= CALL_TARGET_MS else f"MISSED by {added - CALL_TARGET_MS:.3f} ms"
    ratio = _ms(steps["postgres"]) / _ms(steps["off"])
    step_verdict = "met" if ratio <= STEP_TARGET else f"MISSED by {ratio - STEP_TARGET:.2f}"
    print(
        "Traces: the engine's overhead with each task's durable trace kept on PostgreSQL "
        f"against none ({RUNS} tasks of each, interleaved; in memory: the recording alone)"
    )
    print(
        f"  per model call (function calling)  off p50 {_ms(calls['off']):.3f} ms, "
        f"in memory {_ms(calls['memory']):.3f} ms, "
        f"PostgreSQL {_ms(calls['postgres']):.3f} ms: +{added:.3f} ms "
        f"(target <= {CALL_TARGET_MS:.0f} ms: {verdict})"
    )
    print(
        f"  per plan-and-execute step          off p50 {_ms(steps['off']):.3f} ms, "
        f"in memory {_ms(steps['memory']):.3f} ms "
        f"x{_ms(steps['memory']) / _ms(steps['off']):.2f}, "
        f"PostgreSQL {_ms(steps['postgres']):.3f} ms x{ratio:.2f} "
        f"(target <= {STEP_TARGET:.2f}: {step_verdict})"
    )
    print(
        f"  the store's writes (a task's batch, beside the run): {len(store.writes):,}, "
        f"p50 {_ms(store.writes):.3f} ms"
    )
