"""Replays (ReplayTask): 100 recorded tasks rerun against their agent, their tool calls
answered from the recordings.

In process, with the in-memory stores (tasks and traces) and a function model (no HTTP):
a lead agent writes a file (`write_file`) and delegates to a helper (a child task) in
its first turn, then answers. 100 such tasks are recorded (the engine's recorder keeps
their traces), then all 100 are replayed at once through the ReplayTask service
(`server.services.recorded.replays`): printed, the wall time of the 100 replays (accepted to
every one ended; target < 60 s), the median and p95 of one replay's own time, and what
the replays ran live (nothing: no file written, no child started); with the traces kept
in memory, then on SQLite (the recorder's writes and the replays' reads through it).
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import structlog

from agent.definitions.catalog import Agents
from agent.engine import Engine
from agent.limits import Capacity, EngineConfig, PlanPolicy
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text, tool_calls
from agent.parts import EngineParts
from agent.recording.traces import Traces
from core.identity import CallContext
from records.agents.definition import AgentDefinition
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.requests import TaskRequest
from records.tasks import Task
from records.traces.replays import ReplayInfo, ReplayRequest
from server.services.recorded.replays import ReplayService
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.sql.database import Database
from stores.sql.engine import migrate
from stores.tasks.memory import InMemoryTaskStore
from stores.traces.base import TraceStore
from stores.traces.memory import InMemoryTraceStore
from stores.traces.sql import SqlTraceStore

REPLAYS = 100
TARGET_SECONDS = 60.0
FC = ExecutionMode.FUNCTION_CALLING


class _Files:
    def __init__(self, agents: Sequence[AgentDefinition]) -> None:
        self._agents = {a.agent_id: a for a in agents}

    def get(self, agent_id: str) -> AgentDefinition | None:
        return self._agents.get(agent_id)

    def all(self) -> list[AgentDefinition]:
        return list(self._agents.values())


def _reply(
    messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
) -> ModelResponse:
    system, last = messages[0].content, messages[-1]
    if not system.startswith("You lead"):
        return text(f"helped with {last.content}")
    goal = next(m.content for m in messages if m.role == "user")
    if not any(m.role == "tool" for m in messages):
        return tool_calls(
            ("write_file", {"path": f"{goal}.txt", "content": goal}),
            ("agent.helper", {"task": goal}),
        )
    return text(f"done: {goal}")


def _engine(workspace: Path, traces: TraceStore) -> tuple[Engine, InMemoryTaskStore]:
    lead = AgentDefinition(
        "lead", instructions="You lead.", mode=FC, tools=("write_file",), delegates=("helper",)
    )
    helper = AgentDefinition("helper", description="helps", mode=FC, tools=())
    store = InMemoryTaskStore()
    registry = build_registry(
        Settings(workspace_dir=workspace, tool_permission="write"), InMemoryAuditLog()
    )
    engine = Engine(
        ModelRoles(default=FunctionModel(_reply)),
        registry,
        EngineParts(
            store,
            agents=Agents(None, _Files([lead, helper])),
            traces=Traces(traces),
        ),
        EngineConfig(
            plan=PlanPolicy(critic_policy="off"),
            delta_flush_seconds=0.0,
            capacity=Capacity(REPLAYS, 2 * REPLAYS, tenant_queue_share=1.0),
        ),
    )
    return engine, store


def _count(folder: Path) -> int:
    return len(list(folder.iterdir()))


async def _ended(store: InMemoryTaskStore, task: Task) -> Task:
    async for _ in store.read_events(task.tenant, task.task_id):
        pass
    return await store.get(task.tenant, task.task_id)


async def _replayed(
    replays: ReplayService, store: InMemoryTaskStore, task_id: str
) -> tuple[Task, float]:
    began = time.perf_counter()
    task = await replays.replay(ReplayRequest(task_id), CallContext())
    return await _ended(store, task), time.perf_counter() - began


@dataclass(frozen=True, slots=True)
class _Figures:
    wall: float
    own_ms: list[float]
    reports: list[ReplayInfo]
    files: int
    first_children: int
    written: int
    children: int


async def _scenario(traces: TraceStore) -> _Figures:
    """Record `REPLAYS` tasks, then replay them all at once (traces kept in `traces`)."""
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        engine, store = _engine(workspace, traces)
        try:
            recorded = [
                await _ended(
                    store,
                    await engine.start(TaskRequest(f"job-{n}", agent="lead"), CallContext()),
                )
                for n in range(REPLAYS)
            ]
            files = _count(workspace)
            replays = ReplayService(engine)
            began = time.perf_counter()
            done = await asyncio.gather(*(_replayed(replays, store, t.task_id) for t in recorded))
            wall = time.perf_counter() - began
        finally:
            await engine.close()
        written = _count(workspace) - files
    return _Figures(
        wall,
        sorted(seconds * 1000 for _, seconds in done),
        [t.replay for t, _ in done if t.replay is not None],
        files,
        sum(len(t.children) for t in recorded),
        written,
        sum(len(t.children) for t, _ in done),
    )


def _report(where: str, got: _Figures) -> None:
    own, reports = got.own_ms, got.reports
    print(
        f"  {where}: {len(own)} replays at once {got.wall:.2f} s; target < "
        f"{TARGET_SECONDS:g} s (ratio {got.wall / TARGET_SECONDS:.3f}); one replay, accepted "
        f"to ended: p50 {statistics.median(own):.1f} ms, p95 {own[int(len(own) * 0.95) - 1]:.1f} ms"
    )
    print(
        f"    the recordings wrote {got.files} files and started {got.first_children} "
        f"children; the replays: {sum(r.recorded_calls for r in reports)} calls answered "
        f"from them, {sum(r.live_calls for r in reports)} live, {got.written} files written, "
        f"{got.children} children started, {len(reports)} reports "
        f"({sum(r.diverged for r in reports)} diverged)"
    )


async def main() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    memory = await _scenario(InMemoryTraceStore())
    with tempfile.TemporaryDirectory() as folder:
        url = f"sqlite+aiosqlite:///{Path(folder) / 'bench.db'}"
        await migrate(url)
        database = Database.open(url)
        try:
            sqlite = await _scenario(SqlTraceStore(database))
        finally:
            await database.close()
    print("Replays (in process, in-memory task stores, function model; each recorded task")
    print("wrote a file and delegated to a helper)")
    _report("traces in memory", memory)
    _report("traces on SQLite", sqlite)


if __name__ == "__main__":
    asyncio.run(main())
