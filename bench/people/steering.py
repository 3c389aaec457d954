"""A steer's delivery: from SteerTask returning to the model request that carries it.

An agentd server (embedded defaults, in this process) runs function-calling tasks whose
first model reply calls a tool that waits at a gate; while it waits, SteerTask adds a
message; as soon as SteerTask returns the gate opens, and the time until the model is
asked again with the steer in its messages is the delivery. The model answers at once
(an in-process double), so what is measured is agentd's own path: the call's result
written, the safe point, the steer read from the task's log, the next request built.
Its target is 5 ms (p50). Bounded: ROUNDS tasks, each within TIME_CAP_SECONDS.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

import grpc

from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text, tool_calls
from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import tasks_pb2
from core.identity import CallContext
from records.keys import new_key
from records.messages import Message, ModelResponse, ModelSettings, ToolDefinition
from records.tools.model import JSONValue, PermissionLevel, RiskLevel, Tool, ToolOutput, ToolSpec
from server import logs
from server.app import AgentdServer
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog

ROUNDS = 50
TIME_CAP_SECONDS = 10.0
TARGET_MS = 5.0
STEER = "steer-"


class _Gate(Tool):
    """Waits until the bench opens the gate."""

    spec = ToolSpec(
        name="gate",
        description="Wait for the gate.",
        parameters={"type": "object", "properties": {}},
        category="bench",
        permission=PermissionLevel.NONE,
        risk=RiskLevel.LOW,
        idempotent=True,
        timeout_seconds=TIME_CAP_SECONDS,
    )

    def __init__(self) -> None:
        self.waiting = asyncio.Event()
        self.gate = asyncio.Event()

    async def run(self, arguments: dict[str, JSONValue], context: CallContext) -> ToolOutput:
        self.waiting.set()
        await self.gate.wait()
        return ToolOutput({}, "opened")


class _Model:
    """Calls the gate first; answers at once after, noting when the steer arrived."""

    def __init__(self) -> None:
        self.steered_at: dict[str, float] = {}
        self.steered = asyncio.Event()

    def __call__(
        self, messages: Sequence[Message], tools: Sequence[ToolDefinition], s: ModelSettings
    ) -> ModelResponse:
        last = messages[-1]
        if last.role == "user" and last.content.startswith(STEER):
            self.steered_at[last.content] = time.perf_counter()
            self.steered.set()
            return text("done")
        return tool_calls(("gate", {}))


Auth = tuple[tuple[str, str], ...]


async def _round(
    stub: pb_grpc.AgentServiceAsyncStub, auth: Auth, gate: _Gate, model: _Model, n: int
) -> float:
    gate.waiting.clear()
    gate.gate.clear()
    model.steered.clear()
    request = pb.ExecuteRequest(task=f"task {n}", mode=tasks_pb2.EXECUTION_MODE_FUNCTION_CALLING)
    task = await stub.StartTask(request, metadata=auth)
    await asyncio.wait_for(gate.waiting.wait(), TIME_CAP_SECONDS)
    message = f"{STEER}{n}"
    steer = pb.SteerTaskRequest(task_id=task.task_id, message=message)
    await stub.SteerTask(steer, metadata=auth)
    returned = time.perf_counter()
    gate.gate.set()
    await asyncio.wait_for(model.steered.wait(), TIME_CAP_SECONDS)
    return (model.steered_at[message] - returned) * 1000


async def main() -> None:
    logs.configure("error")
    with tempfile.TemporaryDirectory() as tmp:
        settings = Settings(
            address="127.0.0.1:0",
            workspace_dir=Path(tmp),
            log_level="error",
            database_url=f"sqlite+aiosqlite:///{Path(tmp) / 'agentd.db'}",
            metrics_address="",
            llm_model="in-process",
            tool_permission="write",
        )
        gate, model = _Gate(), _Model()
        registry = build_registry(settings, InMemoryAuditLog())
        registry.register(gate)
        models = ModelRoles(default=FunctionModel(model))
        agentd = await AgentdServer.start(settings, registry=registry, models=models)
        try:
            key, plaintext = new_key("bench", "bench", ())
            await agentd.durable.api_keys.add(key)
            auth = (("authorization", f"Bearer {plaintext}"),)
            async with grpc.aio.insecure_channel(f"127.0.0.1:{agentd.port}") as channel:
                stub: pb_grpc.AgentServiceAsyncStub = pb_grpc.AgentServiceStub(channel)
                times = [await _round(stub, auth, gate, model, n) for n in range(ROUNDS)]
        finally:
            await agentd.shutdown(grace=1)
    p50 = statistics.median(times)
    p95 = statistics.quantiles(times, n=20)[-1]
    print(f"Steer delivery (SteerTask returned -> model request carrying it), {ROUNDS} tasks")
    print(
        f"  p50 {p50:.2f} ms, p95 {p95:.2f} ms; target {TARGET_MS:g} ms p50: x{p50 / TARGET_MS:.2f}"
    )


if __name__ == "__main__":
    asyncio.run(main())
