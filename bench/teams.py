"""Agents working together: what a delegation costs, and how a fan-out overlaps.

In process, with the in-memory stores and a function model (no HTTP): a lead agent
delegates to sub-agents (`agent.teams`).

- Delegation overhead: from the moment the lead asks the engine to start a child to the
  child's first event in its log (its PENDING status), read as soon as the engine has
  accepted it (the child accepted: request checked, agent resolved, idempotency key
  reserved, task stored, first event written; the lead itself parks until the child
  ends). Target: p50 <= 5 ms; the median and p95 of a bounded
  number of delegations are printed with the median's ratio to the target.
- Fan-out: a lead delegates to 3 sub-agents in one turn; each child's model takes
  0.1 / 0.15 / 0.2 s. Printed: the lead's wall time (accepted to ended) over the
  slowest child's own time (accepted to ended): 1.0 is perfect overlap; three children
  run one after another would be about 2.25.
"""

from __future__ import annotations

import asyncio
import logging
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path
from typing import Any

import structlog

from agent.definitions.catalog import Agents
from agent.engine import Engine
from agent.limits import EngineConfig, PlanPolicy
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text, tool_calls
from agent.parts import EngineParts
from agent.teams.base import ChildTasks
from core.identity import CallContext
from records.agents.definition import AgentDefinition
from records.events import TaskEvent
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.requests import TaskRequest
from records.tasks import Task
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.tasks.memory import InMemoryTaskStore

DELEGATIONS = 200
TARGET_MS = 5.0
DELAYS = {"one": 0.1, "two": 0.15, "three": 0.2}
FC = ExecutionMode.FUNCTION_CALLING


class _Files:
    """Agents as a folder of files would give them."""

    def __init__(self, agents: Sequence[AgentDefinition]) -> None:
        self._agents = {a.agent_id: a for a in agents}

    def get(self, agent_id: str) -> AgentDefinition | None:
        return self._agents.get(agent_id)

    def all(self) -> list[AgentDefinition]:
        return list(self._agents.values())


class _Timed:
    """The engine as the lead's delegations see it, timing start -> the child's first
    event, read from its log as soon as the engine accepted it (the lead itself parks
    until the child ends, and reads none of it)."""

    def __init__(self, engine: ChildTasks) -> None:
        self._engine = engine
        self._asked: dict[str, float] = {}
        self._watching: set[asyncio.Task[None]] = set()
        self.overheads: list[float] = []

    async def start(self, request: TaskRequest, call: CallContext) -> Task:
        asked = time.perf_counter()
        task = await self._engine.start(request, call)
        self._asked[task.task_id] = asked
        watch = asyncio.create_task(self._first(task))
        self._watching.add(watch)
        watch.add_done_callback(self._watching.discard)
        return task

    async def _first(self, task: Task) -> None:
        async for _ in self.events(task.tenant, task.task_id):
            return

    async def find(self, tenant: str, task_id: str) -> Task:
        return await self._engine.find(tenant, task_id)

    async def cancel_quietly(self, tenant: str, task_id: str, reason: str) -> None:
        await self._engine.cancel_quietly(tenant, task_id, reason)

    async def events(self, tenant: str, task_id: str) -> AsyncIterator[TaskEvent]:
        async for event in self._engine.events(tenant, task_id):
            asked = self._asked.pop(task_id, None)
            if asked is not None:
                self.overheads.append(time.perf_counter() - asked)
            yield event


async def _reply(
    messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
) -> ModelResponse:
    system, last = messages[0].content, messages[-1]
    if system.startswith("You lead"):
        if last.role == "tool":
            return text("all done")
        width = 3 if "fan out" in last.content else 1
        return tool_calls(*(("agent.sub-" + n, {"task": n}) for n in list(DELAYS)[:width]))
    await asyncio.sleep(DELAYS.get(last.content, 0.0))
    return text(f"{last.content} done")


def _engine(workspace: Path) -> tuple[Engine, InMemoryTaskStore, _Timed]:
    lead = AgentDefinition(
        "lead",
        instructions="You lead.",
        mode=FC,
        tools=("calculator",),
        delegates=tuple(f"sub-{n}" for n in DELAYS),
    )
    subs = [AgentDefinition(f"sub-{n}", description=n, mode=FC, tools=()) for n in DELAYS]
    store = InMemoryTaskStore()
    registry = build_registry(
        Settings(workspace_dir=workspace, tool_permission="write"), InMemoryAuditLog()
    )
    engine = Engine(
        ModelRoles(default=FunctionModel(_reply)),
        registry,
        EngineParts(store, agents=Agents(None, _Files([lead, *subs]))),
        EngineConfig(plan=PlanPolicy(critic_policy="off"), delta_flush_seconds=0.0),
    )
    runs: Any = engine._runs
    timed = _Timed(runs.team.children)
    runs.team.children = timed
    return engine, store, timed


async def _run(engine: Engine, store: InMemoryTaskStore, goal: str) -> Task:
    task = await engine.start(TaskRequest(goal, agent="lead"), CallContext())
    async for _ in store.read_events(task.tenant, task.task_id):
        pass
    return await store.get(task.tenant, task.task_id)


def _seconds(task: Task) -> float:
    return (task.updated_at - task.created_at).total_seconds()


async def main() -> None:
    # Each task's end is logged at INFO: hundreds of lines that are not the figures.
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))
    with tempfile.TemporaryDirectory() as folder:
        engine, store, timed = _engine(Path(folder))
        try:
            for _ in range(DELEGATIONS // 10):  # warm up: imports, first-call costs
                await _run(engine, store, "delegate once")
            timed.overheads.clear()
            for _ in range(DELEGATIONS):
                await _run(engine, store, "delegate once")
            ms = sorted(o * 1000 for o in timed.overheads)
            p50, p95 = statistics.median(ms), ms[int(len(ms) * 0.95) - 1]
            ratios = []
            for _ in range(5):
                lead = await _run(engine, store, "fan out")
                children = [await store.get(lead.tenant, c.task_id) for c in lead.children]
                ratios.append(_seconds(lead) / max(_seconds(c) for c in children))
        finally:
            await engine.close()
    print("Agents working together (in process, in-memory stores, function model)")
    print(
        f"  delegation overhead (start -> child's first event), {len(ms)} delegations: "
        f"p50 {p50:.2f} ms, p95 {p95:.2f} ms; target p50 <= {TARGET_MS:g} ms "
        f"(ratio {p50 / TARGET_MS:.2f})"
    )
    print(
        f"  3-child fan-out, lead wall time / slowest child's own time: median "
        f"{statistics.median(ratios):.2f} (1.00 = perfect overlap; sequential ~2.25)"
    )


if __name__ == "__main__":
    asyncio.run(main())
