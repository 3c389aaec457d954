"""A replay's report (`Task.replay`) kept with the task's history on memory, SQLite and
the machine's PostgreSQL: GetTask shows it also once the task left the live store."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from records.tasks import Task, TaskStatus
from records.traces.replays import DivergenceKind, ReplayDivergence, ReplayInfo, ReplayTools
from stores.history.base import TaskHistory
from stores.history.memory import InMemoryTaskHistory
from stores.history.sql import SqlTaskHistory
from tests.contract.conftest import SQL_BACKENDS, migrated_database


@pytest.fixture(params=["memory", *SQL_BACKENDS])
async def history(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[TaskHistory]:
    if request.param == "memory":
        yield InMemoryTaskHistory()
        return
    async with migrated_database(request.param, tmp_path) as database:
        yield SqlTaskHistory(database)


async def test_a_replays_report_is_kept_with_its_history(history: TaskHistory) -> None:
    report = ReplayInfo(
        "task_recorded",
        ReplayTools.READ_ONLY,
        recorded_answer="42",
        ended=True,
        divergence=ReplayDivergence(
            DivergenceKind.TOOL_CALL, 1, 'write_file {"path":"a"}', 'write_file {"path":"b"}'
        ),
        recorded_calls=1,
        not_run_calls=1,
        live_calls=1,
    )
    replay = Task(
        task_id="task_replay",
        tenant="acme",
        owner="alice",
        goal="go",
        status=TaskStatus.COMPLETED,
        replay=report,
    )
    await history.record(replay)
    await history.record(
        Task(
            task_id="task_plain",
            tenant="acme",
            owner="alice",
            goal="go",
            status=TaskStatus.COMPLETED,
        )
    )
    assert (await history.get("acme", "task_replay")).replay == report
    assert (await history.get("acme", "task_plain")).replay is None
