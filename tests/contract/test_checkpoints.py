"""The checkpoint store contract, on memory, SQLite and the machine's PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.identity import Principal
from records import serialization
from records.checkpoints import JournalEntry, RunCheckpoint
from records.messages import Message, ToolCall
from records.plan import Plan, PlanStep
from records.tasks import TokenUsage
from stores.checkpoints.base import CheckpointStore
from stores.checkpoints.memory import InMemoryCheckpointStore
from stores.checkpoints.sql import SqlCheckpointStore
from tests.contract.conftest import SQL_BACKENDS, migrated_database


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def checkpoints(
    request: pytest.FixtureRequest, tmp_path: Path
) -> AsyncIterator[CheckpointStore]:
    if request.param == "memory":
        yield InMemoryCheckpointStore()
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlCheckpointStore(database)


async def test_the_latest_save_wins(checkpoints: CheckpointStore) -> None:
    assert await checkpoints.load("t1", "task-1") is None
    await checkpoints.save("t1", "task-1", "first")
    await checkpoints.save("t1", "task-1", "second")
    assert await checkpoints.load("t1", "task-1") == "second"


async def test_another_tenant_sees_nothing(checkpoints: CheckpointStore) -> None:
    await checkpoints.save("t1", "task-1", "mine")
    assert await checkpoints.load("t2", "task-1") is None


async def test_delete_is_idempotent_and_leaves_other_tasks(checkpoints: CheckpointStore) -> None:
    await checkpoints.save("t1", "task-1", "a")
    await checkpoints.save("t1", "task-2", "b")
    await checkpoints.delete("task-1")
    await checkpoints.delete("task-1")
    await checkpoints.delete("never-saved")
    assert await checkpoints.load("t1", "task-1") is None
    assert await checkpoints.load("t1", "task-2") == "b"


async def test_a_full_checkpoint_round_trips(checkpoints: CheckpointStore) -> None:
    """Every type a mode puts in a checkpoint, with hostile text, comes back equal."""
    hostile = 'nul \x00, emoji \U0001f600, quote \' " and {"__t": "Task"}' + "x" * 100_000
    state = RunCheckpoint(
        principal=Principal("svc", "t1", ("operator",)),
        token_budget=5000,
        deadline_at=1_900_000_000.5,
        usage=TokenUsage(10, 20, 3),
        completed_steps=2,
        notes=("[s1] fetched: 42", hostile),
        journal={
            "plan-1/s1": JournalEntry("call-1", "http_request", True, True, "ok", {"__t": "x"}),
            "plan-1/s2": JournalEntry("call-2", "write_file", False),
        },
        mode_state={
            "messages": [
                Message("user", hostile),
                Message("assistant", "", (ToolCall("c1", "calculator", '{"expression":"1"}'),)),
                Message("tool", "1", tool_call_id="c1", name="calculator"),
            ],
            "plan": Plan((PlanStep("s1", "do it", tool="calculator"),), revision=2),
            "iteration": 3,
        },
    )
    await checkpoints.save("t1", "task-1", serialization.dumps(state))
    raw = await checkpoints.load("t1", "task-1")
    assert raw is not None
    assert serialization.loads(raw) == state
