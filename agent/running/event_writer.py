"""How a running task's events reach its log: in order, with text deltas coalesced.

A model streams its reply in many small chunks; writing each as an event
would cost a store write (and a message to every reader) per few
characters. Deltas of one kind (text or reasoning) and one step that arrive
within `flush_seconds` of the first are joined into one event, which goes
out once that time has passed, once it holds `max_chars` characters, or as
soon as any other event is emitted (so the log keeps the order in which
things happened). With `flush_seconds` 0 every chunk is its own event.

No credential leaves a task in its events: every event is scrubbed on its way
(`redact_event`: what a tool returned, what a model wrote, what a caller or a store
said); deltas pass through a `StreamRedactor`, which holds back the last word of the
text until the next piece shows whether it was part of a key. Then, when the task's
guardrails look at the model's output (`agent.guardrails.runs`), deltas pass through a
`GuardedStream`, which releases text only once a window of it has passed the checks: a
blocked window writes nothing of itself (its decision is written, and the task stops),
a redacted one its placeholders. A step's output is checked whole. Nothing reaches the
log, and so no reader of it, that the checks have not passed.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import replace

import structlog

from agent.guardrails.base import Blocked
from agent.guardrails.runs import RunGuard, blocked, decisions
from agent.guardrails.stream import GuardedStream
from core.secrets import StreamRedactor, redact, scrub
from records import events as ev
from records.guardrails import Point, Verdict
from records.plan import Plan
from records.tools.invocation import redacted

log = structlog.get_logger(__name__)

Delta = ev.TextDelta | ev.ReasoningDelta
Append = Callable[[ev.EventPayload], Awaitable[None]]


class EventWriter:
    """Writes one task's events through `append`, one at a time, coalescing deltas and
    keeping credentials out of them (`redact_event`)."""

    __slots__ = (
        "_append",
        "_flush_seconds",
        "_guard",
        "_guarded",
        "_kind",
        "_lock",
        "_max_chars",
        "_pending",
        "_pending_size",
        "_redactor",
        "_timed_flush",
        "_timer",
    )

    def __init__(
        self,
        append: Append,
        *,
        flush_seconds: float,
        max_chars: int,
        guard: RunGuard | None = None,
    ) -> None:
        self._append = append
        self._guard = guard
        self._guarded: GuardedStream | None = None
        self._flush_seconds = flush_seconds
        self._max_chars = max(1, max_chars)
        self._lock = asyncio.Lock()
        self._pending: list[str] = []
        self._pending_size = 0
        self._kind: tuple[type[Delta], str] | None = None
        self._redactor: StreamRedactor | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._timed_flush: asyncio.Task[None] | None = None

    async def emit(self, payload: ev.EventPayload) -> None:
        async with self._lock:
            if isinstance(payload, ev.TextDelta | ev.ReasoningDelta):
                await self._add(payload)
                return
            await self._settle()
            if self._guard is not None and isinstance(payload, ev.StepFinished):
                output = await self._guard.text(
                    Point.OUTPUT, payload.output, self._decided, final=False
                )
                payload = replace(payload, output=output)
            await self._append(redact_event(payload))

    async def flush(self) -> None:
        """Write the pending delta text now, but for a tail that may be part of a secret."""
        async with self._lock:
            await self._write_pending()

    async def _add(self, delta: Delta) -> None:
        kind = (type(delta), delta.step_id)
        if self._kind != kind:
            await self._settle()
            self._kind, self._redactor = kind, StreamRedactor()
            self._guarded = self._guard.stream() if self._guard is not None else None
        assert self._redactor is not None
        text = self._redactor.feed(delta.text)
        if text and self._guarded is not None:
            text = await self._checked(self._guarded.feed(text))
        if not text:
            return
        self._pending.append(text)
        self._pending_size += len(text)
        if self._flush_seconds <= 0 or self._pending_size >= self._max_chars:
            await self._write_pending()
        elif self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self._flush_seconds, self._time_is_up)

    def _time_is_up(self) -> None:
        self._timer = None
        if self._pending and (self._timed_flush is None or self._timed_flush.done()):
            self._timed_flush = asyncio.create_task(self._flush_quietly())

    async def _flush_quietly(self) -> None:
        try:
            await self.flush()
        except Exception:  # the next emit meets the same fault and reports it
            log.warning("could not write a coalesced delta yet", exc_info=True)

    async def _settle(self) -> None:
        """End the current run of deltas: write all of it, the held-back tail included
        (checked first, when the output is guarded)."""
        if self._redactor is not None:
            tail = self._redactor.flush()
            guarded = self._guarded
            if guarded is not None:
                if tail:
                    tail = await self._checked(guarded.feed(tail))
                tail += await self._checked(guarded.finish())
            if tail:
                self._pending.append(tail)
        await self._write_pending()
        self._kind, self._redactor, self._guarded = None, None, None

    async def _checked(self, released: Awaitable[str]) -> str:
        """What a guarded stream released, after writing the decisions it came to; a
        blocked window's decision written, then GuardrailBlockedError (nothing of the
        window, nor of what the stream still held, is ever written)."""
        guarded = self._guarded
        assert guarded is not None
        told = len(guarded.verdicts)
        try:
            text = await released
        except Blocked as stop:
            self._kind, self._redactor, self._guarded = None, None, None
            await self._tell(guarded.verdicts[told:] or [stop.verdict])
            blocked(stop.verdict, Point.OUTPUT)
            raise  # unreachable: a blocking verdict raises above
        await self._tell(guarded.verdicts[told:])
        return text

    async def _tell(self, verdicts: list[Verdict]) -> None:
        guard = self._guard
        assert guard is not None
        for verdict in verdicts:
            events = decisions(verdict, Point.OUTPUT)
            for event in events:
                await self._decided(event)
            await guard.recorded(events, verdict.text)

    async def _decided(self, event: ev.GuardrailDecided) -> None:
        """A decision's event, written in its place (the writer's lock is held)."""
        await self._append(redact_event(event))

    async def _write_pending(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if not self._pending or self._kind is None:
            return
        cls, step_id = self._kind
        text = "".join(self._pending)
        self._pending, self._pending_size = [], 0
        await self._append(cls(step_id, text))


def _redact_plan(plan: Plan) -> Plan:
    steps = tuple(
        replace(
            step,
            description=scrub(step.description),
            arguments=redact(dict(step.arguments)),
            expected_output=scrub(step.expected_output),
        )
        for step in plan.steps
    )
    return replace(plan, steps=steps)


def redact_event(payload: ev.EventPayload) -> ev.EventPayload:
    """`payload` with every credential-shaped part of its text replaced."""
    match payload:
        case ev.ToolCallFinished():
            error = payload.error
            if error is not None:
                error = replace(error, message=scrub(error.message))
            return replace(
                payload, result=redact(payload.result), text=scrub(payload.text), error=error
            )
        case ev.StepFinished():
            return replace(payload, output=scrub(payload.output))
        case ev.FinalAnswer():
            return replace(
                payload, text=scrub(payload.text), stop_detail=scrub(payload.stop_detail)
            )
        case ev.ErrorOccurred():
            return replace(payload, message=scrub(payload.message))
        case ev.StatusChanged():
            return replace(payload, detail=scrub(payload.detail))
        case ev.ToolCallStarted() | ev.ApprovalRequested():  # an invocation's: redacted once
            return replace(payload, arguments=redacted(payload.arguments))
        case ev.ApprovalDecided():
            arguments = None if payload.arguments is None else redacted(payload.arguments)
            return replace(payload, comment=scrub(payload.comment), arguments=arguments)
        case ev.InputRequested():
            return replace(payload, question=scrub(payload.question))
        case ev.InputProvided():
            return replace(payload, text=scrub(payload.text))
        case ev.TaskSteered():
            return replace(payload, message=scrub(payload.message))
        case ev.GuardrailDecided():
            return replace(payload, reason=scrub(payload.reason))
        case ev.ReflectionVerdict():
            return replace(payload, feedback=scrub(payload.feedback))
        case ev.PlanCreated():
            return replace(payload, plan=_redact_plan(payload.plan))
        case ev.PlanRevised():
            return replace(payload, plan=_redact_plan(payload.plan), reason=scrub(payload.reason))
        case ev.StepStarted():
            return replace(payload, description=scrub(payload.description))
        case ev.TextDelta() | ev.ReasoningDelta():
            return replace(payload, text=scrub(payload.text))
        case ev.SubtaskStarted():
            return replace(payload, task=scrub(payload.task))
        case ev.SubtaskFinished():
            return replace(payload, answer=scrub(payload.answer), error=scrub(payload.error))
        case ev.SubtaskWaiting():
            return replace(payload, detail=scrub(payload.detail))
        case ev.PanelVote() | ev.PanelDecided():
            return replace(payload, answer=scrub(payload.answer))
        case _:
            return payload
