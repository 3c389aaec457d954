"""A2A against the native contract, in one run on one server: the round trip of a task
(A2A `SendMessage`, blocking, against native `Execute` read to its end) and streaming
(A2A `SendStreamingMessage` against native `Execute`, tasks and messages per second).

One agentd in this process (A2A on, auth off, SQLite, in-process task store) on a
scripted model that answers at once in 20 chunks. The native stream carries every event
(text deltas, coalesced as by default; usage ...); the A2A stream carries A2A's updates
only (status changes and the answer as one artifact), so the figures that compare like
with like are the round trip and tasks per second; messages per second are printed for
both as they are.
Loops are bounded in count and time.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import grpc
from a2a.types import a2a_pb2, a2a_pb2_grpc

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import tasks_pb2
from server import logs
from server.app import AgentdServer
from server.settings import Settings

RUNS = 150
TIME_CAP_SECONDS = 40.0
REPLY = {"text": "The answer is forty-two, as computed in full. " * 4, "chunks": 20, "repeat": -1}


def _a2a_request(n: int) -> a2a_pb2.SendMessageRequest:
    return a2a_pb2.SendMessageRequest(
        message=a2a_pb2.Message(
            message_id=f"bench-{n}", role=a2a_pb2.ROLE_USER, parts=[a2a_pb2.Part(text="6*7?")]
        )
    )


Timing = tuple[list[float], int, float]
"""Per-call seconds, messages received in all, and the seconds spent in calls."""


async def _interleaved(calls: dict[str, Callable[[int], Awaitable[int]]]) -> dict[str, Timing]:
    """Each kind of call in turn, RUNS rounds at most (so that what the machine does meanwhile
    falls on all alike), bounded in time."""
    times: dict[str, list[float]] = {name: [] for name in calls}
    messages = dict.fromkeys(calls, 0)
    begun = time.perf_counter()
    for n in range(RUNS):
        for name, call in calls.items():
            started = time.perf_counter()
            messages[name] += await call(n)
            times[name].append(time.perf_counter() - started)
        if time.perf_counter() - begun > TIME_CAP_SECONDS:
            break
    return {name: (times[name], messages[name], sum(times[name])) for name in calls}


async def _figures(address: str) -> dict[str, Timing]:
    channel = grpc.aio.insecure_channel(address)
    native = pb_grpc.AgentServiceStub(channel)
    a2a: Any = a2a_pb2_grpc.A2AServiceStub(channel)  # type: ignore[no-untyped-call]
    mode = tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING

    async def execute(n: int) -> int:
        request = pb.ExecuteRequest(task="6*7?", mode=mode)
        return len([event async for event in native.Execute(request)])

    async def send(n: int) -> int:
        response = await a2a.SendMessage(_a2a_request(n))
        assert response.task.status.state == a2a_pb2.TASK_STATE_COMPLETED
        return 1

    async def stream(n: int) -> int:
        return len([update async for update in a2a.SendStreamingMessage(_a2a_request(-n - 1))])

    try:
        await execute(-1)  # warm: connection, caches
        return await _interleaved({"execute": execute, "send": send, "stream": stream})
    finally:
        await channel.close(None)


def _p50_ms(times: list[float]) -> float:
    return statistics.median(times) * 1000


async def main() -> None:
    logs.configure("error")
    with tempfile.TemporaryDirectory() as folder:
        workspace = Path(folder)
        async with FakeOpenAIServer([REPLY]) as llm:
            settings = Settings(
                address="127.0.0.1:0",
                workspace_dir=workspace,
                llm_base_url=llm.base_url,
                llm_model="m",
                llm_api_key="k",
                critic_policy="off",
                log_level="error",
                auth="off",
                tool_permission="write",
                rate_limits="",
                tenant_rate_limits="",
                metrics_address="",
                a2a=True,
                database_url=f"sqlite+aiosqlite:///{workspace / 'agentd.db'}",
            )
            server = await AgentdServer.start(settings)
            try:
                found = await _figures(f"127.0.0.1:{server.port}")
            finally:
                await server.shutdown(grace=0)
    execute, send, stream = found["execute"], found["send"], found["stream"]
    print(
        f"A2A against native Execute (one server, {len(execute[0])} tasks each, a 20-chunk answer)"
    )
    native_ms, send_ms = _p50_ms(execute[0]), _p50_ms(send[0])
    print(
        f"  round trip p50: native Execute {native_ms:.2f} ms, A2A SendMessage "
        f"{send_ms:.2f} ms   ratio {send_ms / native_ms:.2f}"
    )
    native_tps, stream_tps = len(execute[0]) / execute[2], len(stream[0]) / stream[2]
    print(
        f"  streamed tasks/s: native Execute {native_tps:.1f}, A2A SendStreamingMessage "
        f"{stream_tps:.1f}   ratio {stream_tps / native_tps:.2f}"
    )
    native_eps, stream_eps = execute[1] / execute[2], stream[1] / stream[2]
    print(
        f"  streamed messages/s: native {native_eps:.0f} ({execute[1] / len(execute[0]):.0f} "
        f"events a task), A2A {stream_eps:.0f} ({stream[1] / len(stream[0]):.0f} updates "
        f"a task)   ratio {stream_eps / native_eps:.2f}"
    )
