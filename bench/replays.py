"""Replays (ReplayTask): 100 recorded tasks rerun against their agent, their tool calls
answered from the recordings.

In process, with the in-memory stores (tasks and traces) and a function model (no HTTP):
a lead agent writes a file (`write_file`) and delegates to a helper (a child task) in
its first turn, then answers. 100 such tasks are recorded (the engine's recorder keeps
their traces), then all 100 are replayed at once through the ReplayTask service
(`server.services.replays`): printed, the wall time of the 100 replays (accepted to
every one ended; target < 60 s), the median and p95 of one replay's own time, and what
the replays ran live (nothing: no file written, no child started).
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import tempfile
import time
from collections.abc import Sequence
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
from records.traces.replays import ReplayRequest
from server.services.replays import ReplayService
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.tasks.memory import InMemoryTaskStore
from stores.traces.memory import InMemoryTraceStore

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


def _engine(workspace: Path) -> tuple[Engine, InMemoryTaskStore]:
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
            traces=Traces(InMemoryTraceStore()),
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


async def main() -> None:
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        engine, store = _engine(workspace)
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
    own = sorted(seconds * 1000 for _, seconds in done)
    reports = [t.replay for t, _ in done if t.replay is not None]
    live = sum(r.live_calls for r in reports)
    children = sum(len(t.children) for t, _ in done)
    diverged = sum(r.diverged for r in reports)
    answered = sum(r.recorded_calls for r in reports)
    first_children = sum(len(t.children) for t in recorded)
    print("Replays (in process, in-memory stores and traces, function model)")
    print(
        f"  {len(done)} replays of recorded tasks (write_file + a delegation each), at once: "
        f"{wall:.2f} s; target < {TARGET_SECONDS:g} s (ratio {wall / TARGET_SECONDS:.3f})"
    )
    print(
        f"  one replay, accepted to ended: p50 {statistics.median(own):.1f} ms, "
        f"p95 {own[int(len(own) * 0.95) - 1]:.1f} ms"
    )
    print(
        f"  the recordings wrote {files} files and started {first_children} children; the "
        f"replays: {answered} calls answered from them, {live} live, {written} files written, "
        f"{children} children started, {len(reports)} reports ({diverged} diverged)"
    )


if __name__ == "__main__":
    asyncio.run(main())
