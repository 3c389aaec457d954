"""A gateway-like client: starts a task with Execute, retries after RESOURCE_EXHAUSTED as
its RetryInfo says, resumes a broken stream with StreamTaskEvents (on another replica when
there are several), and checks the log it received: sequences 1..N, each once, ending
with the terminal status."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
from google.rpc import error_details_pb2, status_pb2

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import events_pb2, tasks_pb2
from agentd_client.status_details import from_rpc_error

TERMINAL = {
    tasks_pb2.TASK_STATUS_COMPLETED: "completed",
    tasks_pb2.TASK_STATUS_FAILED: "failed",
    tasks_pb2.TASK_STATUS_CANCELLED: "cancelled",
}
RESUMABLE = {grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED, grpc.StatusCode.UNKNOWN}


@dataclass
class Outcome:
    """What one task came to, as the gateway saw it."""

    n: int
    status: str = "unended"
    """completed, failed, cancelled, refused (a budget refused its start), or unended (no
    terminal event within the cap)."""
    stop_reason: str = ""
    """The terminal event's StopReason name."""
    quota: tuple[str, ...] = ()
    """A refused start's QuotaFailure subjects (`budget:<id>`)."""
    task_id: str = ""
    internal: int = 0
    """INTERNAL statuses received (never acceptable)."""
    errors: list[str] = field(default_factory=list)
    retries: int = 0
    resumes: int = 0
    events: int = 0
    lost_or_repeated: int = 0
    """Sequences missing or received twice (0 when the log arrived whole)."""
    latency: float = 0.0
    """From the first attempt to the terminal event."""


def retry_delay(error: grpc.aio.AioRpcError) -> float:
    """The RetryInfo delay of a failed call, if it carries one."""
    trailers = cast(Iterable[tuple[str, str | bytes]], error.trailing_metadata() or ())
    for key, value in trailers:
        if key == "grpc-status-details-bin" and isinstance(value, bytes):
            for detail in status_pb2.Status.FromString(value).details:
                info = error_details_pb2.RetryInfo()
                if detail.Unpack(info):
                    return float(info.retry_delay.ToTimedelta().total_seconds())
    return 1.0


@dataclass
class Gateway:
    """Runs tasks against one or more replicas (`stubs`), at most `cap` seconds each."""

    stubs: Sequence[Any]
    """AgentService stubs, one per replica."""
    cap: float = 300.0
    slow_reader: float = 0.0
    """Seconds a reader sleeps after each event (a slow client); 0 reads at once."""
    metadata: tuple[tuple[str, str], ...] = ()
    """Sent with every call (an API key)."""
    tools: tuple[str, ...] = ()
    """The tools each task may use (empty: every tool the caller may)."""
    in_flight: int = 0
    peak_in_flight: int = 0

    async def run(self, n: int, text: str, key: str) -> Outcome:
        outcome = Outcome(n)
        started = time.monotonic()
        try:
            async with asyncio.timeout(self.cap):
                await self._run(outcome, text, key)
        except TimeoutError:
            outcome.errors.append("no terminal event within the cap")
        outcome.latency = time.monotonic() - started
        return outcome

    async def _run(self, outcome: Outcome, text: str, key: str) -> None:
        request = pb.ExecuteRequest(
            task=text,
            mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING,
            idempotency_key=key,
            tools=self.tools,
        )
        received: list[events_pb2.TaskEvent] = []
        replica = outcome.n % len(self.stubs)
        try:
            while True:  # Execute, until the server takes the task
                try:
                    call = self.stubs[replica].Execute(request, metadata=self.metadata)
                    await self._read(call, received)
                    break
                except grpc.aio.AioRpcError as error:
                    if error.code() == grpc.StatusCode.INTERNAL:
                        outcome.internal += 1
                    if received:
                        break
                    if _refused(outcome, error):  # no retry brings a spent budget back
                        return
                    if error.code() not in (grpc.StatusCode.RESOURCE_EXHAUSTED, *RESUMABLE):
                        outcome.errors.append(f"Execute: {error.code().name} {error.details()}")
                        return
                    outcome.retries += 1
                    if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                        replica = (replica + 1) % len(self.stubs)  # that replica is going
                    # A replica's RetryInfo is paced to its own queue: come back to it then.
                    await asyncio.sleep(retry_delay(error))
            outcome.task_id = received[0].task_id
            await self._follow(outcome, received, replica)
        finally:
            if received:
                self.in_flight -= 1
            self._check(outcome, received)

    async def _follow(
        self, outcome: Outcome, received: list[events_pb2.TaskEvent], replica: int
    ) -> None:
        while not _ended(received):  # the stream broke: resume where it stopped
            outcome.resumes += 1
            replica = (replica + 1) % len(self.stubs)
            request = pb.StreamTaskEventsRequest(
                task_id=outcome.task_id, after_sequence=received[-1].sequence
            )
            try:
                call = self.stubs[replica].StreamTaskEvents(request, metadata=self.metadata)
                await self._read(call, received)
            except grpc.aio.AioRpcError as error:
                if error.code() == grpc.StatusCode.INTERNAL:
                    outcome.internal += 1
                if error.code() not in RESUMABLE:
                    outcome.errors.append(f"resume: {error.code().name} {error.details()}")
                    return
                await asyncio.sleep(0.2)

    async def _read(self, call: object, received: list[events_pb2.TaskEvent]) -> None:
        async for event in call:  # type: ignore[attr-defined]
            if event.sequence == 0:
                continue  # a heartbeat
            if not received:  # the task is accepted: in flight until it ends
                self.in_flight += 1
                self.peak_in_flight = max(self.peak_in_flight, self.in_flight)
            received.append(event)
            if self.slow_reader:
                await asyncio.sleep(self.slow_reader)

    def _check(self, outcome: Outcome, received: list[events_pb2.TaskEvent]) -> None:
        outcome.events = len(received)
        sequences = [e.sequence for e in received]
        expected = list(range(1, (max(sequences) if sequences else 0) + 1))
        outcome.lost_or_repeated = len(set(expected) ^ set(sequences)) + (
            len(sequences) - len(set(sequences))
        )
        if _ended(received):
            outcome.status = TERMINAL[received[-1].status_changed.current]
            outcome.stop_reason = tasks_pb2.StopReason.Name(received[-1].status_changed.stop_reason)


def _refused(outcome: Outcome, error: grpc.aio.AioRpcError) -> bool:
    """Whether a budget refused the task's start (RESOURCE_EXHAUSTED, BUDGET_EXHAUSTED): the
    outcome then says so, with the QuotaFailure's subjects."""
    if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
        return False
    refusal = from_rpc_error(error)
    if refusal.reason != "BUDGET_EXHAUSTED":
        return False
    outcome.status = "refused"
    outcome.quota = tuple(v.field for v in refusal.quota_violations)
    return True


def _ended(received: list[events_pb2.TaskEvent]) -> bool:
    if not received:
        return False
    last = received[-1]
    return (
        last.WhichOneof("payload") == "status_changed" and last.status_changed.current in TERMINAL
    )
