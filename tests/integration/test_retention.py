"""Retention on a running server: with AGENTD_HISTORY_RETENTION_SECONDS and
AGENTD_ARTIFACT_RETENTION_SECONDS set, the server's sweeper removes a finished task's
record and its artifacts once they are past their time (GetTask and GetArtifact then
answer NOT_FOUND); by default (0) both are kept for ever and no sweeper runs."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import ValidationError
from sqlalchemy import func, select

from agentd.v1 import tasks_pb2
from agentd_client import errors as client_errors
from server.settings import Settings
from server.wiring.stores import retention_sweeper
from stores.sql.database import Database
from stores.sql.schema import artifacts
from tests.integration.trust import trusted

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
WRITE = {"name": "write_artifact", "arguments": {"name": "report.md", "content": "draft"}}


async def test_a_finished_task_and_its_artifacts_are_swept_past_their_time(
    tmp_path: Path,
) -> None:
    replies = [{"tool_calls": [WRITE]}, {"text": "written"}]
    settings = {
        "retention_seconds": 1,
        "history_retention_seconds": 1,
        "artifact_retention_seconds": 1,
        "retention_sweep_interval_seconds": 1.0,
    }
    async with trusted(tmp_path, replies, **settings) as t:
        await t.grant("acme", "principal:alice", "category:artifacts", "write")
        alice = await t.client("acme", "alice")
        events = [e async for e in alice.execute("write a report", mode=FC)]
        task_id = events[0].task_id
        assert (await alice.get_task(task_id)).status == tasks_pb2.TASK_STATUS_COMPLETED
        assert (await alice.get_artifact(task_id, "report.md")).content == b"draft"
        for _ in range(200):  # the live state (1 s), then a sweep past the record's 1 s
            try:
                await alice.get_task(task_id)
            except client_errors.NotFoundError:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the finished task's record was never swept")
        engine = t.server.durable.database.engine
        for _ in range(100):  # GetArtifact answers NOT_FOUND with the task gone: the rows
            async with engine.connect() as connection:
                left = await connection.scalar(select(func.count()).select_from(artifacts))
            if left == 0:
                break
            await asyncio.sleep(0.1)
        else:
            raise AssertionError("the artifact was never swept")


def test_records_are_kept_for_ever_by_default_and_traces_for_30_days(tmp_path: Path) -> None:
    """Task records and artifacts are kept for ever by default; the usage ledger, one row
    per model call, for 400 days (AGENTD_USAGE_RETENTION_SECONDS; 0: for ever too); tasks'
    traces for 30 days (AGENTD_TRACE_RETENTION_SECONDS: never for ever, so a sweeper always
    runs), schedules' runs for 30 days (AGENTD_SCHEDULE_RUN_RETENTION_SECONDS), triggers'
    deliveries for 7 days (AGENTD_TRIGGER_DELIVERY_RETENTION_SECONDS)."""
    settings = Settings(database_url=f"sqlite+aiosqlite:///{tmp_path / 'a.db'}")
    assert (settings.history_retention_seconds, settings.artifact_retention_seconds) == (0, 0)
    assert settings.usage_retention_seconds == 400 * 86_400
    assert settings.trace_retention_seconds == 30 * 86_400
    database = Database.open(settings.database_url)
    by_default = retention_sweeper(settings, database)
    assert by_default is not None
    assert [r.records.name for r in by_default.rules] == [
        "usage ledger rows",
        "task traces",
        "schedule runs",
        "trigger deliveries",
    ]
    for_ever = settings.model_copy(update={"usage_retention_seconds": 0})
    traces_only = retention_sweeper(for_ever, database)
    assert traces_only is not None
    assert [r.records.name for r in traces_only.rules] == [
        "task traces",
        "schedule runs",
        "trigger deliveries",
    ]
    kept = for_ever.model_copy(update={"artifact_retention_seconds": 86400})
    sweeper = retention_sweeper(kept, database)
    assert sweeper is not None
    assert [r.records.name for r in sweeper.rules] == [
        "artifact versions",
        "task traces",
        "schedule runs",
        "trigger deliveries",
    ]
    records = for_ever.model_copy(update={"history_retention_seconds": 86400})
    sweeper = retention_sweeper(records, database)
    assert sweeper is not None  # the inbox's history goes with the task records
    assert [(r.records.name, r.keep_seconds) for r in sweeper.rules] == [
        ("task records", 86400),
        ("inbox history entries", 86400),
        ("task traces", 30 * 86_400),
        ("schedule runs", 30 * 86_400),
        ("trigger deliveries", 7 * 86_400),
    ]


def test_a_trigger_delivery_is_kept_while_it_could_be_replayed() -> None:
    """While its timestamp can pass the window (up to the tolerance ahead, so twice it,
    plus a minute's margin); the task retention is no bound (an older replay is refused
    by the window whatever the engine's idempotency key does)."""

    def with_triggers(kept: int, doors: tuple[str, ...] = ("triggers",)) -> Settings:
        return Settings(
            http_doors=list(doors),
            trigger_tolerance_seconds=300,
            task_timeout_seconds=600,
            retention_seconds=7 * 86_400,
            trigger_delivery_retention_seconds=kept,
        )

    with pytest.raises(ValidationError, match="AGENTD_TRIGGER_DELIVERY_RETENTION_SECONDS"):
        with_triggers(659)
    assert with_triggers(660).trigger_delivery_retention_seconds == 660
    assert with_triggers(0).trigger_delivery_retention_seconds == 0  # for ever
    assert with_triggers(60, doors=()).trigger_delivery_retention_seconds == 60  # no door
    assert Settings(http_doors=["triggers"]).trigger_delivery_retention_seconds == 7 * 86_400


def test_a_record_cannot_go_before_the_live_state() -> None:
    with pytest.raises(ValidationError, match="AGENTD_HISTORY_RETENTION_SECONDS"):
        Settings(retention_seconds=3600, history_retention_seconds=60)
    assert Settings(retention_seconds=60, history_retention_seconds=60).history_retention_seconds
