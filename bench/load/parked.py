"""The parking scenarios: tasks that wait for a person hold no running place.

- `parked`: one process at the default limits (100 running, 100 queued), Redis +
  PostgreSQL; `tasks` (1,000) tasks each wait for an approval of their calculator call,
  all INPUT_REQUIRED; a task that needs no approval then runs at once; approving them all
  completes every one. Reports the memory per parked task (the process alone; StartTask,
  so no client stream is held open) beside the time the further task took. The tasks are
  parked twice: the first round's growth is mostly the process's, kept by the allocator
  after every task ended (printed), so the figure judged is the second round's, parked
  on a process the first warmed: what parked tasks themselves keep.
- `parked-kill`: two replicas; `tasks` (500) tasks parked for the approval of an
  http_request POST on the first, which is killed -9; all approved on the second, every
  one completes there and no POST reaches its server twice.

Every loop is bounded in count and time.
"""

from __future__ import annotations

import asyncio
import secrets
import tempfile
import time
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc
import redis.asyncio as redis

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import events_pb2, tasks_pb2
from bench.load import processes
from bench.load.gateway import retry_delay
from bench.load.scenarios import Config, _settings, _stubs

FC = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING
INPUT = tasks_pb2.TASK_STATUS_INPUT_REQUIRED
DONE = tasks_pb2.TASK_STATUS_COMPLETED
ENDED: set[int] = {DONE, tasks_pb2.TASK_STATUS_FAILED, tasks_pb2.TASK_STATUS_CANCELLED}


@dataclass
class Parked:
    name: str
    submitted: int = 0
    parked: int = 0
    """Tasks INPUT_REQUIRED at once, with no lease (the replicas' `parked` list)."""
    completed: int = 0
    failed: int = 0
    repeated_calls: int = 0
    further_seconds: float = 0.0
    """How long the task needing no approval took, started once all were parked."""
    idle_rss_kib: int = 0
    first_rss_kib: int = 0
    """With the first round parked."""
    warm_rss_kib: int = 0
    """After the first round ended: the process's growth kept, no task parked."""
    parked_rss_kib: int = 0
    """With the second round parked."""
    park_seconds: float = 0.0
    finish_seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    @property
    def per_parked_kib(self) -> float:
        return (self.parked_rss_kib - self.warm_rss_kib) / self.parked if self.parked else 0.0

    def per_task_kib(self, rss_kib: int) -> float:
        """Growth from idle to `rss_kib`, per parked task."""
        return (rss_kib - self.idle_rss_kib) / self.parked if self.parked else 0.0

    @property
    def correct(self) -> bool:
        return (
            self.parked == self.submitted
            and self.completed == self.submitted
            and not self.failed
            and not self.repeated_calls
        )


async def _start(stub: Any, goal: str, cap: float) -> str:
    """StartTask, tried again after RESOURCE_EXHAUSTED as its RetryInfo says."""
    request = pb.ExecuteRequest(task=goal, mode=FC)
    deadline = time.monotonic() + cap
    while True:
        try:
            task: tasks_pb2.Task = await stub.StartTask(request)
            return task.task_id
        except grpc.aio.AioRpcError as error:
            retryable = error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
            if not retryable or time.monotonic() > deadline:
                raise
            await asyncio.sleep(retry_delay(error))


async def _statuses(stub: Any, ids: list[str]) -> list[int]:
    limit = asyncio.Semaphore(50)

    async def one(task_id: str) -> int:
        async with limit:
            task = await stub.GetTask(pb.GetTaskRequest(task_id=task_id))
            return int(task.status)

    return list(await asyncio.gather(*(one(t) for t in ids)))


async def _until(stub: Any, ids: list[str], wanted: set[int], cap: float) -> int:
    """Poll until every task is in `wanted` (or `cap` seconds passed): how many are."""
    deadline = time.monotonic() + cap
    while True:
        found = await _statuses(stub, ids)
        count = sum(s in wanted for s in found)
        if count == len(ids) or time.monotonic() > deadline:
            return count
        await asyncio.sleep(0.5)


async def _approve_all(stub: Any, ids: list[str]) -> None:
    """Approve each task's waiting call (its id read from the task's log)."""
    limit = asyncio.Semaphore(50)

    async def one(task_id: str) -> None:
        async with limit:
            request = pb.StreamTaskEventsRequest(task_id=task_id)
            call_id = ""
            async for event in stub.StreamTaskEvents(request):
                if event.WhichOneof("payload") == "approval_requested":
                    call_id = event.approval_requested.call_id
                    break
            decision = events_pb2.APPROVAL_DECISION_APPROVE
            await stub.ApproveToolCall(
                pb.ApproveToolCallRequest(task_id=task_id, call_id=call_id, decision=decision)
            )

    await asyncio.gather(*(one(t) for t in ids))


async def _parked_count(prefix: str) -> int:
    client = redis.Redis.from_url(processes.REDIS_URL)
    try:
        return int(await client.hlen(f"{prefix}parked"))
    finally:
        await client.aclose()


APPROVAL = {"AGENTD_ANONYMOUS_ROLES": "approver", "AGENTD_CRITIC_POLICY": "off"}


async def parked(config: Config, tasks: int = 1000) -> Parked:
    result = Parked(f"parked: {tasks} tasks waiting for approval on one process")
    run = secrets.token_hex(4)
    with tempfile.TemporaryDirectory(prefix="agentd-load-") as folder:
        async with AsyncExitStack() as stack:
            model = processes.start_model(Path(folder), config.hold)
            stack.callback(model.stop)
            settings = {**_settings(config, model), **APPROVAL}
            settings["AGENTD_APPROVAL_TOOLS"] = "calculator"
            stores = await stack.enter_async_context(processes.shared_stores())
            settings.update(stores)
            server = processes.start_server("agentd", Path(folder), settings)
            stack.callback(server.stop)
            (stub,) = await _stubs(stack, [server])
            warm = await _start(stub, f"job-{run}-warm: answer at once", config.cap)
            await _until(stub, [warm], ENDED, config.cap)
            result.idle_rss_kib = processes.rss_kib(server.pid)
            first = await asyncio.gather(
                *(_start(stub, f"job-{run}-first-{n}: 40+2?", config.cap) for n in range(tasks))
            )
            await _until(stub, list(first), {INPUT}, config.cap)
            await asyncio.sleep(1.0)  # settled
            result.first_rss_kib = processes.rss_kib(server.pid)
            await _approve_all(stub, list(first))
            if await _until(stub, list(first), {DONE}, config.cap) != len(first):
                result.errors.append("the first round did not complete")
            await asyncio.sleep(1.0)
            result.warm_rss_kib = processes.rss_kib(server.pid)
            started = time.monotonic()
            ids = await asyncio.gather(
                *(_start(stub, f"job-{run}-{n}: 40+2?", config.cap) for n in range(tasks))
            )
            result.submitted = len(ids)
            waiting = await _until(stub, list(ids), {INPUT}, config.cap)
            result.park_seconds = time.monotonic() - started
            in_redis = await _parked_count(stores["AGENTD_REDIS_PREFIX"])
            result.parked = min(waiting, in_redis)
            await asyncio.sleep(1.0)  # settled
            result.parked_rss_kib = processes.rss_kib(server.pid)
            began = time.monotonic()
            further = await _start(stub, f"job-{run}-further: answer at once", config.cap)
            if await _until(stub, [further], {DONE}, config.cap) != 1:
                result.errors.append("the further task did not complete")
            result.further_seconds = time.monotonic() - began
            began = time.monotonic()
            await _approve_all(stub, list(ids))
            result.completed = await _until(stub, list(ids), {DONE}, config.cap)
            result.finish_seconds = time.monotonic() - began
            result.failed = result.submitted - result.completed
    return result


async def parked_kill(config: Config, tasks: int = 500) -> Parked:
    result = Parked(f"parked, kill -9: {tasks} tasks parked on one of two replicas")
    run = secrets.token_hex(4)
    with (
        tempfile.TemporaryDirectory(prefix="agentd-load-") as folder,
        processes.recording_server() as recorder,
    ):
        async with AsyncExitStack() as stack:
            model = processes.start_model(Path(folder), config.hold, post=recorder.url)
            stack.callback(model.stop)
            settings = {**_settings(config, model), **APPROVAL}
            settings["AGENTD_APPROVAL_TOOLS"] = "http_request"
            settings["AGENTD_HTTP_ALLOWED_NETWORKS"] = "127.0.0.1/32"
            settings["AGENTD_LEASE_SECONDS"] = "3"
            stores = await stack.enter_async_context(processes.shared_stores())
            settings.update(stores)
            servers = [
                processes.start_server(f"agentd-{i}", Path(folder) / str(i), settings)
                for i in range(2)
            ]
            for server in servers:
                stack.callback(server.stop)
            first, second = await _stubs(stack, servers)
            started = time.monotonic()
            ids = await asyncio.gather(
                *(_start(first, f"job-{run}-{n}: record this", config.cap) for n in range(tasks))
            )
            result.submitted = len(ids)
            waiting = await _until(second, list(ids), {INPUT}, config.cap)
            for _ in range(int(config.cap)):  # parked: no lease held on any of them
                in_redis = await _parked_count(stores["AGENTD_REDIS_PREFIX"])
                if in_redis >= tasks:
                    break
                await asyncio.sleep(1.0)
            result.parked = min(waiting, in_redis)
            result.park_seconds = time.monotonic() - started
            servers[0].kill()
            began = time.monotonic()
            await _approve_all(second, list(ids))
            result.completed = await _until(second, list(ids), {DONE}, config.cap)
            result.finish_seconds = time.monotonic() - began
            result.failed = result.submitted - result.completed
    repeated = {
        body: n for body, n in recorder.bodies.items() if body.startswith(f"job-{run}") and n > 1
    }
    result.repeated_calls = sum(n - 1 for n in repeated.values())
    return result


def report(result: Parked) -> bool:
    print(f"== {result.name}")
    print(
        f"  submitted {result.submitted}  parked at once {result.parked}  completed "
        f"{result.completed}  failed {result.failed}  repeated non-idempotent calls "
        f"{result.repeated_calls}"
    )
    print(
        f"  all parked in {result.park_seconds:.1f} s; approved, all completed in "
        f"{result.finish_seconds:.1f} s"
    )
    passed = result.correct
    if result.idle_rss_kib:
        per_task = result.per_parked_kib * 1.024
        first = result.per_task_kib(result.first_rss_kib) * 1.024
        kept = result.per_task_kib(result.warm_rss_kib) * 1.024
        print(
            f"  memory per parked task {per_task:.1f} KB (process only, {result.parked} parked "
            f"on a warmed process; target <= 5 KB); a further task took "
            f"{result.further_seconds:.2f} s"
        )
        print(
            f"  the first round: {first:.1f} KB per task while parked, {kept:.1f} KB per task "
            "still held after every one ended (the process's growth to serve it, not the tasks')"
        )
        passed = passed and per_task <= 5.0 and not result.errors
    for error in result.errors[:5]:
        print(f"  error: {error}")
    print(f"  {'PASS' if passed else 'FAIL'}")
    return passed
