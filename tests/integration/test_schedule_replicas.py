"""Two `agentd serve` replicas on Redis and PostgreSQL fire 20 interval schedules (every
2 s for 30 s); replica A is killed with -9 partway and started again. Every due time has
exactly one task, counted by `(schedule, due time)`: none missed, none doubled."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from google.protobuf import duration_pb2, timestamp_pb2

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import schedules_pb2 as pb
from agentd_client.client import AgentClient
from tests.helpers import server_process
from tests.integration.test_takeover import kill, replica_env

pytestmark = [pytest.mark.redis, pytest.mark.postgres]

SCHEDULES = 20
EVERY = 2
FOR = 30
LEASE = 3


def _stamp(moment: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(moment)
    return stamp


async def _create(address: str, start: datetime) -> list[str]:
    async with AgentClient(address) as client:
        ids = []
        for n in range(SCHEDULES):
            timing = pb.ScheduleTiming(
                interval=duration_pb2.Duration(seconds=EVERY),
                start_time=_stamp(start),
                end_time=_stamp(start + timedelta(seconds=FOR - 0.5)),
            )
            schedule = pb.Schedule(
                display_name=f"every {EVERY}s #{n}",
                timing=timing,
                task=pb.ScheduledTask(goal=f"tick {n}"),
                overlap=pb.OVERLAP_POLICY_CANCEL_PREVIOUS,  # every due time starts a task
                catch_up=pb.CATCH_UP_POLICY_EACH,
                catch_up_window=duration_pb2.Duration(seconds=60),
            )
            made = await client.create_schedule(schedule)
            ids.append(made.id)
        return ids


async def _runs(client: AgentClient, schedule_id: str) -> list[pb.ScheduleRun]:
    return list((await client.list_schedule_runs(schedule_id, page_size=100)).runs)


async def _tasks_of(client: AgentClient, schedule_id: str) -> list[str]:
    ids, token = [], ""
    while True:
        page = await client.list_tasks(
            labels={"agentd.schedule": schedule_id}, page_size=100, page_token=token
        )
        ids += [task.task_id for task in page.tasks]
        token = page.next_page_token
        if not token:
            return ids


async def test_every_due_time_has_one_task_across_a_kill_9(
    tmp_path: Path, prefix: str, database: str
) -> None:
    replies = [{"text": "ok"}] * 2000
    async with FakeOpenAIServer(replies) as llm:
        env = replica_env(
            llm.base_url,
            prefix,
            database,
            AGENTD_ANONYMOUS_ROLES="operator",
            AGENTD_SCHEDULE_MIN_INTERVAL_SECONDS="1",
            AGENTD_SCHEDULE_LEASE_SECONDS=str(LEASE),
            AGENTD_SCHEDULE_TICK_SECONDS="0.2",
        )
        with server_process(tmp_path / "b", env):
            with server_process(tmp_path / "a", env) as first:
                start = datetime.now(UTC) + timedelta(seconds=3)
                ids = await _create(first.address, start)
                await asyncio.sleep((start - datetime.now(UTC)).total_seconds() + 10)
                kill(first)
            await asyncio.sleep(3)
            with server_process(tmp_path / "a2", env) as again:
                ending = start + timedelta(seconds=FOR + LEASE + 3)
                await asyncio.sleep(max(0.0, (ending - datetime.now(UTC)).total_seconds()))
                due = [start + timedelta(seconds=EVERY * k) for k in range(FOR // EVERY)]
                async with AgentClient(again.address) as client:
                    for schedule_id in ids:
                        runs = await _runs(client, schedule_id)
                        by_due = sorted(r.due_time.ToDatetime(UTC) for r in runs)
                        assert by_due == due, schedule_id  # none missed, none twice
                        assert all(r.state == pb.SCHEDULE_RUN_STATE_STARTED for r in runs)
                        tasks = {r.task_id for r in runs}
                        assert len(tasks) == len(due)  # one task per due time
                        assert sorted(await _tasks_of(client, schedule_id)) == sorted(tasks)
