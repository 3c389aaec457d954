"""The approval round trip: from ApproveToolCall returning to the approved call going on.

A task waits for the approval of a calculator call; the time from ApproveToolCall
returning to the first event the approved call writes after the decision
(`approval_decided`), and to its `tool_call_finished`, is measured on the embedded
defaults and on Redis + PostgreSQL, each an `agentd serve` process against the fake
model. With AGENTD_BENCH_BASELINE naming another checkout (with its `.venv`, e.g. one of
main before parking), the same is measured against its server in the same run, so the
two are compared on one machine at one moment. Bounded: ROUNDS tasks per server.
"""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

import grpc

from agent.llm.fakes.server import FakeOpenAIServer
from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import events_pb2, tasks_pb2
from bench.load import processes

ROUNDS = 30
REPLIES = [
    {"match": "42", "text": "it is 42", "repeat": -1},
    {"tool_calls": [{"name": "calculator", "arguments": {"expression": "6*7"}}], "repeat": -1},
]


async def _round(stub: pb_grpc.AgentServiceAsyncStub, n: int) -> tuple[float, float]:
    """One task: ms from ApproveToolCall returning to approval_decided and to
    tool_call_finished of the approved call."""
    request = pb.ExecuteRequest(task=f"compute {n}", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING)
    stream = stub.Execute(request)
    call_id, task_id = "", ""
    decided = finished = 0.0
    approved = 0.0
    async for event in stream:
        task_id = task_id or event.task_id
        kind = event.WhichOneof("payload")
        if kind == "approval_requested":
            call_id = event.approval_requested.call_id
            decision = events_pb2.APPROVAL_DECISION_APPROVE
            await stub.ApproveToolCall(
                pb.ApproveToolCallRequest(task_id=task_id, call_id=call_id, decision=decision)
            )
            approved = time.perf_counter()
        elif kind == "approval_decided" and approved:
            decided = time.perf_counter()
        elif kind == "tool_call_finished" and approved:
            finished = time.perf_counter()
    # The woken run may write its events before the reply reaches this client: 0 then.
    return max(0.0, decided - approved) * 1000, max(0.0, finished - approved) * 1000


async def _measure(tree: Path, shared: dict[str, str], folder: Path) -> tuple[float, float]:
    async with FakeOpenAIServer(REPLIES) as llm:
        settings = {
            "AGENTD_LLM_BASE_URL": llm.base_url,
            "AGENTD_APPROVAL_TOOLS": "calculator",
            "AGENTD_ANONYMOUS_ROLES": "approver",
            "AGENTD_CRITIC_POLICY": "off",
            **shared,
        }
        server = processes.start_server("agentd", folder, settings, root=tree)
        try:
            async with grpc.aio.insecure_channel(server.address) as channel:
                stub: pb_grpc.AgentServiceAsyncStub = pb_grpc.AgentServiceStub(channel)
                for n in range(3):  # warm up
                    await _round(stub, n)
                rounds = [await _round(stub, n) for n in range(ROUNDS)]
        finally:
            server.stop()
    return statistics.median(r[0] for r in rounds), statistics.median(r[1] for r in rounds)


async def main() -> None:
    print("== approval round trip (ApproveToolCall returning -> the approved call goes on)")
    trees = [("this tree", processes.ROOT)]
    baseline = os.environ.get("AGENTD_BENCH_BASELINE")
    if baseline:
        trees.append(("baseline", Path(baseline)))
    with tempfile.TemporaryDirectory(prefix="agentd-bench-") as folder:
        for mode in ("embedded", "Redis + PostgreSQL"):
            for name, tree in trees:
                where = Path(folder) / f"{mode[:5]}-{name[:4]}"
                if mode == "embedded":
                    decided, finished = await _measure(tree, {}, where)
                else:
                    async with processes.shared_stores() as shared:
                        decided, finished = await _measure(tree, shared, where)
                print(
                    f"  {mode:<19} {name:<10} approval_decided p50 {decided:6.1f} ms   "
                    f"tool_call_finished p50 {finished:6.1f} ms   (target <= 5 ms)"
                )
    if not baseline:
        print("  (AGENTD_BENCH_BASELINE=<checkout with .venv> measures another tree beside it)")


if __name__ == "__main__":
    asyncio.run(main())
