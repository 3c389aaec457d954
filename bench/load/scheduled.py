"""The schedules scenario of `make load`: three replicas on Redis + PostgreSQL fire 60
interval schedules every 10 s for three minutes; one replica is killed with -9 a minute
in. Every due time must have exactly one started task (none missed, none doubled,
counted by `(schedule, due time)`). Lateness (when the run fired minus its due time) is
printed: p99 at most 1 s for due times away from the kill, and at most the lease + a
tick + 1 s for those that were (or could have been) held by the killed replica: due from
1 s before the kill to a lease + a tick after it.
"""

from __future__ import annotations

import asyncio
import tempfile
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from google.protobuf import duration_pb2, timestamp_pb2

from agentd.v1 import schedules_pb2 as pb
from agentd_client.client import AgentClient
from bench.load import processes

SCHEDULES = 60
EVERY = 10
FOR = 180
KILL_AFTER = 60
LEASE = 5.0
TICK = 0.5


@dataclass
class ScheduleResult:
    due: int = 0
    started: int = 0
    missed: int = 0
    doubled: int = 0
    near_kill: list[float] = field(default_factory=list)
    away: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


def _stamp(moment: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def _schedule(n: int, start: datetime) -> pb.Schedule:
    first = start + timedelta(seconds=EVERY * n / SCHEDULES)  # spread over the interval
    timing = pb.ScheduleTiming(
        interval=duration_pb2.Duration(seconds=EVERY),
        start_time=_stamp(first),
        end_time=_stamp(first + timedelta(seconds=FOR - 1)),
    )
    return pb.Schedule(
        display_name=f"load {n}",
        timing=timing,
        task=pb.ScheduledTask(goal=f"scheduled {n}"),
        overlap=pb.OVERLAP_POLICY_CANCEL_PREVIOUS,
        catch_up=pb.CATCH_UP_POLICY_EACH,
        catch_up_window=duration_pb2.Duration(seconds=120),
    )


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def schedules() -> ScheduleResult:
    result = ScheduleResult()
    with tempfile.TemporaryDirectory(prefix="agentd-load-") as folder:
        async with AsyncExitStack() as stack:
            model = processes.start_model(Path(folder), 0.05)
            stack.callback(model.stop)
            settings = {
                "AGENTD_LLM_BASE_URL": model.address,
                "AGENTD_ANONYMOUS_ROLES": "operator",
                "AGENTD_SCHEDULE_LEASE_SECONDS": str(LEASE),
                "AGENTD_SCHEDULE_TICK_SECONDS": str(TICK),
                "AGENTD_SCHEDULE_MIN_INTERVAL_SECONDS": "1",
            }
            settings.update(await stack.enter_async_context(processes.shared_stores()))
            servers = [
                processes.start_server(f"agentd-{i}", Path(folder) / str(i), settings)
                for i in range(3)
            ]
            for server in servers:
                stack.callback(server.stop)
            client = await stack.enter_async_context(AgentClient(servers[0].address))
            start = datetime.now(UTC) + timedelta(seconds=5)
            ids = [(await client.create_schedule(_schedule(n, start))).id for n in range(SCHEDULES)]
            await asyncio.sleep((start - datetime.now(UTC)).total_seconds() + KILL_AFTER)
            killed_at = datetime.now(UTC)
            servers[1].kill()
            end = start + timedelta(seconds=FOR + EVERY + LEASE + 5)
            await asyncio.sleep((end - datetime.now(UTC)).total_seconds())
            for n, schedule_id in enumerate(ids):
                runs = list((await client.list_schedule_runs(schedule_id, page_size=100)).runs)
                _count(result, n, start, runs, killed_at)
    return result


def _count(
    result: ScheduleResult,
    n: int,
    start: datetime,
    runs: list[pb.ScheduleRun],
    killed_at: datetime,
) -> None:
    first = start + timedelta(seconds=EVERY * n / SCHEDULES)
    due = [first + timedelta(seconds=EVERY * k) for k in range(FOR // EVERY)]
    result.due += len(due)
    seen: dict[datetime, int] = {}
    for run in runs:
        moment = run.due_time.ToDatetime(UTC)
        seen[moment] = seen.get(moment, 0) + 1
        if run.state != pb.SCHEDULE_RUN_STATE_STARTED or not run.task_id:
            result.errors.append(f"schedule {n}: run due {moment} {run.state} {run.detail}")
            continue
        result.started += 1
        late = (run.fire_time.ToDatetime(UTC) - moment).total_seconds()
        near = -1.0 <= (moment - killed_at).total_seconds() <= LEASE + TICK
        (result.near_kill if near else result.away).append(late)
    result.missed += sum(1 for d in due if d not in seen)
    result.doubled += sum(count - 1 for count in seen.values() if count > 1)
    result.doubled += sum(1 for moment in seen if moment not in due)


def report(result: ScheduleResult) -> bool:
    away, near = percentile(result.away, 0.99), max(result.near_kill, default=0.0)
    print("== schedules, three replicas, kill -9")
    print(
        f"  due {result.due}  started {result.started}  missed {result.missed}  "
        f"doubled {result.doubled}"
    )
    print(
        f"  lateness p99 away from the kill {away:.2f} s (target <= 1 s, {len(result.away)} "
        f"runs); near the kill max {near:.2f} s (target <= {LEASE + TICK + 1:.1f} s, "
        f"{len(result.near_kill)} runs)"
    )
    for error in result.errors[:5]:
        print(f"  error: {error}")
    passed = (
        result.missed == 0
        and result.doubled == 0
        and result.started == result.due
        and away <= 1.0
        and near <= LEASE + TICK + 1
    )
    print(f"  {'PASS' if passed else 'FAIL'}")
    return passed
