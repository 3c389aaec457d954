"""Leases inside one process pair: a replica that loses its lease stops at once without
ending the task, and the replica that claimed it resumes from the checkpoint (text ReAct).

Two engines share the machine's Redis (task store and leases) and one checkpoint store,
as two replicas share Redis and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from pathlib import Path

import pytest
import redis.asyncio as redis

from agent.engine import Engine
from agent.limits import EngineConfig
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text
from agent.parts import EngineParts, Replicas
from core.identity import CallContext, Principal
from records import events as ev
from records.execution import ExecutionMode
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.requests import TaskRequest
from records.tasks import Task, TaskStatus
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.checkpoints.memory import InMemoryCheckpointStore
from stores.leases.redis import RedisLeases
from stores.tasks.redis import RedisTaskStore

pytestmark = pytest.mark.redis


async def test_a_lost_lease_stops_the_task_here_and_the_claimant_resumes_it(
    tmp_path: Path, redis_space: tuple[redis.Redis, str]
) -> None:
    connection, prefix = redis_space
    store = RedisTaskStore(connection, prefix=prefix, poll_seconds=0.05)
    checkpoints = InMemoryCheckpointStore()
    asked_a: list[Sequence[Message]] = []
    asked_b: list[Sequence[Message]] = []
    stuck = asyncio.Event()

    async def model_a(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        asked_a.append(messages)
        if len(asked_a) == 1:
            return text(
                'Thought: add them\nAction: calculator\nAction Input: {"expression": "2+3"}'
            )
        stuck.set()
        await asyncio.Event().wait()  # the second reply never comes on A
        raise AssertionError("unreachable")

    async def model_b(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        asked_b.append(messages)
        return text("Thought: done\nFinal Answer: 5")

    registry = build_registry(
        Settings(workspace_dir=tmp_path, tool_permission="write"), InMemoryAuditLog()
    )
    config = EngineConfig(tool_calling=False)

    def engine(model: FunctionModel, name: str, ttl: float) -> Engine:
        leases = RedisLeases(connection, prefix, ttl_seconds=ttl, replica=name)
        return Engine(
            ModelRoles(default=model),
            registry,
            EngineParts(
                store,
                replicas=Replicas(leases=leases, takeover_interval_seconds=0.05),
                checkpoints=checkpoints,
            ),
            config,
        )

    a = engine(FunctionModel(model_a), "a", ttl=0.6)
    b = engine(FunctionModel(model_b), "b", ttl=5)
    a.supervise()
    principal = Principal("svc", "t1", ("analyst",))
    task = await a.start(
        TaskRequest(goal="add 2 and 3", mode=ExecutionMode.TEXT_REACT, token_budget=9000),
        CallContext(principal),
    )
    await asyncio.wait_for(stuck.wait(), 5)
    # Another replica claims the task (as after a network partition): A must notice and stop.
    await connection.set(f"{prefix}lease:{task.task_id}", "b", px=5000)
    for _ in range(200):
        if not a.running_count():
            break
        await asyncio.sleep(0.02)
    assert not a.running_count()
    assert (await store.get("t1", task.task_id)).status is TaskStatus.RUNNING  # not ended by A
    await connection.delete(f"{prefix}lease:{task.task_id}")  # B's claim "expires"
    b.supervise()
    events = [e async for e in store.read_events("t1", task.task_id)]
    await a.close()
    await b.close()
    final = await store.get("t1", task.task_id)
    assert final.status is TaskStatus.COMPLETED
    assert final.final_answer == "5"
    payloads = [e.payload for e in events]
    resumed = [p for p in payloads if isinstance(p, ev.TaskResumed)]
    assert [(r.replica, r.completed_steps) for r in resumed] == [("b", 1)]
    # B continued the conversation: it saw A's action and its observation, and did not redo it.
    assert [p.tool_name for p in payloads if isinstance(p, ev.ToolCallStarted)] == ["calculator"]
    assert any(m.content.startswith("Observation: 5") for m in asked_b[0])
    assert len(asked_b) == 1
    assert [e.sequence for e in events] == list(range(1, len(events) + 1))


async def test_a_running_orphan_without_a_checkpoint_fails_explicitly(
    tmp_path: Path, redis_space: tuple[redis.Redis, str]
) -> None:
    """Replicas on different databases: the claimant finds no checkpoint and must not guess."""
    connection, prefix = redis_space
    store = RedisTaskStore(connection, prefix=prefix, poll_seconds=0.05)
    task = Task(task_id="task_orphan", tenant="t1", owner="svc", goal="work",
                status=TaskStatus.RUNNING)  # fmt: skip
    await store.create(task)
    dead = RedisLeases(connection, prefix, ttl_seconds=0.1, replica="dead")
    await dead.acquire("t1", task.task_id)
    await asyncio.sleep(0.2)

    async def never(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], settings: ModelSettings
    ) -> ModelResponse:
        raise AssertionError("nothing may run")

    registry = build_registry(
        Settings(workspace_dir=tmp_path, tool_permission="write"), InMemoryAuditLog()
    )
    claimant = Engine(
        ModelRoles(default=FunctionModel(never)),
        registry,
        EngineParts(
            store,
            replicas=Replicas(
                leases=RedisLeases(connection, prefix, ttl_seconds=5, replica="b"),
                takeover_interval_seconds=0.05,
            ),
            checkpoints=InMemoryCheckpointStore(),
        ),
    )
    claimant.supervise()
    events = [e async for e in store.read_events("t1", task.task_id)]
    await claimant.close()
    failed = await store.get("t1", task.task_id)
    assert failed.status is TaskStatus.FAILED
    assert failed.failure is not None
    assert "no checkpoint" in failed.failure.message
    assert [type(e.payload) for e in events] == [ev.ErrorOccurred, ev.StatusChanged]
    assert await connection.hget(f"{prefix}active", task.task_id) is None  # forgotten
