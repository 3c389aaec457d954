"""Guardrails: what the checks that need no model add to a task, and what holding output
back per window costs the first text a client sees.

An engine on the in-process stores runs function-calling tasks against a model double
that calls the calculator, then streams an answer of about 1,500 characters in 60
chunks. Every task runs once with no guardrails and once under the checks that need no
model (personal data of every kind, three denied phrases, a length) at all four points,
alternately, so both meet the same machine. The overhead is the difference of the
medians; its target is 5 ms. The first delta's latency is the time from the model's
first chunk to the first text event in the task's log, with the model streaming a chunk
every 2 ms, at windows of 64 and 1,024 characters (the tail: 128). Bounded: TASKS tasks
each way, each within TIME_CAP_SECONDS.
"""

from __future__ import annotations

import asyncio
import statistics
import tempfile
import time
from collections.abc import AsyncIterator, Sequence
from pathlib import Path

from agent.engine import Engine
from agent.limits import EngineConfig, GuardrailPolicy
from agent.llm.roles import ModelRoles
from agent.llm.testing import FunctionModel, text, tool_calls
from agent.parts import EngineParts
from core.identity import CallContext, Principal
from records import events as ev
from records.execution import ExecutionMode
from records.guardrails import Action, CheckSpec, Point
from records.messages import (
    Done,
    Message,
    ModelResponse,
    ModelSettings,
    StreamItem,
    TextChunk,
    ToolDefinition,
)
from records.requests import TaskRequest
from server import logs
from server.settings import Settings
from server.wiring.builders import build_registry
from stores.audit.memory import InMemoryAuditLog
from stores.tasks.memory import InMemoryTaskStore

TASKS = 60
TIME_CAP_SECONDS = 10.0
TARGET_MS = 5.0
CALLER = CallContext(Principal("bench", "bench"))
ANSWER = ("Revenue grew in every region; costs held; the team shipped on time. " * 22)[:1500]
CHECKS = (
    CheckSpec("pii", "pii", frozenset(Point), Action.REDACT),
    CheckSpec(
        "deny",
        "deny",
        frozenset(Point),
        Action.BLOCK,
        options={"phrases": ["project nightingale", "do not share", "internal only"]},
    ),
    CheckSpec("length", "length", frozenset(Point), Action.BLOCK, options={"max_chars": 100_000}),
)


class _Streaming(FunctionModel):
    """Streams its answer in 60 chunks, `gap` seconds apart; notes its first chunk."""

    def __init__(self, gap: float = 0.0) -> None:
        super().__init__(self._answer)
        self.gap = gap
        self.first_chunk: float | None = None

    @staticmethod
    def _answer(
        messages: Sequence[Message], tools: Sequence[ToolDefinition], s: ModelSettings
    ) -> ModelResponse:
        if messages[-1].role == "tool":
            return text(ANSWER)
        return tool_calls(("calculator", {"expression": "19*3"}))

    async def stream(
        self,
        messages: Sequence[Message],
        tools: Sequence[ToolDefinition] = (),
        settings: ModelSettings | None = None,
    ) -> AsyncIterator[StreamItem]:
        response = await self.complete(messages, tools, settings)
        size = max(1, len(response.text) // 60)
        for start in range(0, len(response.text), size):
            if self.first_chunk is None:
                self.first_chunk = time.perf_counter()
            yield TextChunk(response.text[start : start + size])
            await asyncio.sleep(self.gap)
        yield Done(response)


def _engine(folder: Path, model: _Streaming, guardrails: GuardrailPolicy) -> Engine:
    settings = Settings(workspace_dir=folder, tool_permission="write")
    config = EngineConfig(delta_flush_seconds=0.0, guardrails=guardrails)
    registry = build_registry(settings, InMemoryAuditLog())
    return Engine(ModelRoles(default=model), registry, EngineParts(InMemoryTaskStore()), config)


async def _task_ms(engine: Engine, n: int) -> float:
    started = time.perf_counter()
    request = TaskRequest(f"How did quarter {n} go?", mode=ExecutionMode.FUNCTION_CALLING)
    task = await engine.start(request, CALLER)
    async with asyncio.timeout(TIME_CAP_SECONDS):
        async for _ in engine.events("bench", task.task_id):
            pass
    return (time.perf_counter() - started) * 1000


async def _overhead(folder: Path) -> tuple[float, float]:
    bare = _engine(folder, _Streaming(), GuardrailPolicy())
    guarded = _engine(folder, _Streaming(), GuardrailPolicy(CHECKS))
    plain, checked = [], []
    try:
        for n in range(TASKS):
            plain.append(await _task_ms(bare, n))
            checked.append(await _task_ms(guarded, n))
    finally:
        await bare.close()
        await guarded.close()
    return statistics.median(plain), statistics.median(checked)


async def _first_delta_ms(folder: Path, window: int) -> float:
    times = []
    for n in range(10):
        model = _Streaming(gap=0.002)
        engine = _engine(folder, model, GuardrailPolicy(CHECKS, window_chars=window))
        try:
            request = TaskRequest(f"How did quarter {n} go?", mode=ExecutionMode.FUNCTION_CALLING)
            task = await engine.start(request, CALLER)
            async with asyncio.timeout(TIME_CAP_SECONDS):
                async for event in engine.events("bench", task.task_id):
                    if isinstance(event.payload, ev.TextDelta):
                        assert model.first_chunk is not None
                        times.append((time.perf_counter() - model.first_chunk) * 1000)
                        break
        finally:
            await engine.close()
    return statistics.median(times)


async def main() -> None:
    logs.configure("error")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        plain, checked = await _overhead(folder)
        small = await _first_delta_ms(folder, 64)
        large = await _first_delta_ms(folder, 1024)
    added = checked - plain
    print(f"Guardrails (checks that need no model, at every point; {TASKS} tasks each way)")
    print(
        f"  per task p50: {plain:.2f} ms without, {checked:.2f} ms with: +{added:.2f} ms; "
        f"target {TARGET_MS:g} ms: x{max(added, 0) / TARGET_MS:.2f}"
    )
    print(
        f"  first delta after the model's first chunk (a chunk every 2 ms): "
        f"window 64: {small:.1f} ms, window 1024: {large:.1f} ms"
    )


if __name__ == "__main__":
    asyncio.run(main())
