"""Keeping runs' traces: each run records through its `RunRecording`, which turns what
happened into trace entries (`agent.recording.capture`) on the spot and queues them; one
writer task of the process (`Recorder`) writes the queue beside the runs, batched per
task, so no model call waits for a commit. The writer lets what comes within `LINGER_SECONDS`
gather first (a short task's trace is one write, not one per call), unless a run's
`flush` (when it ends) waits: that returns once everything queued before it is written,
so a task's trace is whole when its end is seen.

A write that fails is retried a few times, then logged and dropped: a trace is a record
of the run, never a reason to stop it.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import structlog

from agent.recording import capture
from agent.recording.traces import Traces
from core.secrets import scrub
from records import events as ev
from records.messages import Message, ModelSettings, ToolDefinition
from records.tasks import Task
from records.tools.invocation import Invocation
from records.tools.outcomes import ToolCallResult
from records.traces.model import (
    ToolSource,
    TraceDetail,
    TracedMessage,
    TraceEntry,
    TraceOwner,
    entry_id,
)
from records.traces.size import entry_bytes, message_bytes

log = structlog.get_logger(__name__)

FLUSH_SECONDS = 10.0
"""The longest a run's end waits for its trace to be written (a database out of reach
does not hold the end up)."""
RETRY_PAUSES = (0.05, 0.25, 1.0)
LINGER_SECONDS = 0.25
"""How long the writer lets entries gather before it writes them, while no flush waits
(a process that stops meanwhile loses at most this much of its runs' traces)."""


@dataclass(slots=True)
class _Batch:
    """What one task queued: its entries and the messages they name first."""

    owner: TraceOwner
    entries: list[TraceEntry] = field(default_factory=list)
    messages: list[TracedMessage] = field(default_factory=list)
    cut: bool = False
    fresh: bool = False
    """The first batch of a task no run wrote before (the store need not read what it
    kept of it)."""


class Recorder:
    """The process's trace writer: one task writes what every run queued."""

    def __init__(self, traces: Traces) -> None:
        self.traces = traces
        self._queue: deque[_Batch | asyncio.Future[None]] = deque()
        self._worker: asyncio.Task[None] | None = None
        self._counter = itertools.count()
        self._hurry = asyncio.Event()
        """Set while a flush waits: the writer writes at once."""

    def for_run(self, task: Task, fresh: bool = False) -> RunRecording:
        """The recording of one run of `task` (a woken run's trace goes on the same);
        `fresh`: its first run (nothing of its trace was written before)."""
        agent = task.agent
        owner = TraceOwner(
            task_id=task.task_id,
            tenant=task.tenant,
            user=task.owner,
            root_task_id=task.root,
            parent_task_id=task.parent_task_id,
            agent=agent.reference if agent is not None else "",
            task=capture.capped(scrub(task.goal), self.traces.max_record_bytes)[0],
            started=task.created_at,
        )
        return RunRecording(self, owner, fresh)

    def entry_id(self) -> str:
        """A new entry id: the time now and this process's counter."""
        return entry_id(time.time_ns(), next(self._counter))

    def keep(self, batch: _Batch) -> None:
        self._queue.append(batch)
        self._wake()

    async def flush(self) -> None:
        """Return once everything queued before now is written (or `FLUSH_SECONDS`
        passed)."""
        if not self._queue and (self._worker is None or self._worker.done()):
            return
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._queue.append(done)
        self._hurry.set()
        self._wake()
        try:
            async with asyncio.timeout(FLUSH_SECONDS):
                await asyncio.shield(done)
        except TimeoutError:
            log.warning("a run's trace was not written in time; it is written later")

    async def drain(self) -> None:
        """Wait for everything queued to be written (at shutdown, and in tests)."""
        self._hurry.set()
        while self._worker is not None and not self._worker.done():
            await asyncio.gather(self._worker, return_exceptions=True)

    def _wake(self) -> None:
        if self._worker is None or self._worker.done():
            self._worker = asyncio.create_task(self._work())

    async def _work(self) -> None:
        """Write what is queued: every task's batches joined, the tasks at once (their
        commits grouped by the database's writer), then tell the flushes waiting."""
        while self._queue:
            if not self._hurry.is_set():  # nobody waits: let more gather
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(LINGER_SECONDS):
                        await self._hurry.wait()
            self._hurry.clear()
            joined: dict[str, _Batch] = {}
            waiting: list[asyncio.Future[None]] = []
            while self._queue:
                item = self._queue.popleft()
                if isinstance(item, asyncio.Future):
                    waiting.append(item)
                    continue
                into = joined.get(item.owner.task_id)
                if into is None:
                    joined[item.owner.task_id] = item
                else:
                    into.entries.extend(item.entries)
                    into.messages.extend(item.messages)
                    into.cut = into.cut or item.cut
            await asyncio.gather(*(self._write(b) for b in joined.values()))
            for done in waiting:
                if not done.done():
                    done.set_result(None)

    async def _write(self, batch: _Batch) -> None:
        store = self.traces.store
        for pause in (*RETRY_PAUSES, None):
            try:
                fresh, batch.fresh = batch.fresh, False  # a retry reads what was kept
                await store.write(
                    batch.owner, batch.entries, batch.messages, cut=batch.cut, fresh=fresh
                )
                return
            except Exception:
                if pause is None:
                    log.exception(
                        "a task's trace could not be written", task_id=batch.owner.task_id
                    )
                    return
                await asyncio.sleep(pause)


class RunRecording:
    """What one run records; nothing here awaits but `flush`."""

    __slots__ = ("_bytes", "_cut", "_fresh", "_ids", "_kept", "_recorder", "_same", "owner")

    def __init__(self, recorder: Recorder, owner: TraceOwner, fresh: bool = False) -> None:
        self._recorder = recorder
        self.owner = owner
        self._fresh = fresh
        """Until its first batch: the task's first run, nothing of its trace written."""
        self._ids: dict[Message, TracedMessage] = {}
        """The messages this run sent, as traced (each redacted and named once)."""
        self._same: dict[int, tuple[Message, TracedMessage]] = {}
        """The same by the message object (a run sends the same objects call after call:
        found without hashing their contents)."""
        self._kept: set[str] = set()
        """The message ids this run queued."""
        self._bytes = 0
        self._cut = False

    @property
    def traces(self) -> Traces:
        return self._recorder.traces

    def entry_id(self) -> str:
        return self._recorder.entry_id()

    def model_call(
        self,
        entry: str,
        step_id: str,
        role: str,
        model: str,
        sent: tuple[Sequence[Message], Sequence[ToolDefinition], ModelSettings | None],
        answered: capture.ModelAnswer,
    ) -> None:
        """A model call (`entry`: its id, taken as it was sent): its messages kept once
        each, the call naming them."""
        messages, tools, settings = sent
        limit = self.traces.max_record_bytes
        traced: list[TracedMessage] = []
        for message in messages:
            same = self._same.get(id(message))
            if same is not None and same[0] is message:
                traced.append(same[1])
                continue
            found = self._ids.get(message)
            if found is None:
                found = self._ids[message] = capture.message(message, limit)
            self._same[id(message)] = (message, found)  # holds it: its id stays its own
            traced.append(found)
        firsts = {m.message_id: m for m in traced}  # a message sent twice in one call
        new = [m for m in firsts.values() if m.message_id not in self._kept]
        names = [t.name for t in tools]
        detail, cut = capture.model_call(
            role, model, [m.message_id for m in traced], names, settings, answered, limit
        )
        cut = cut or any(m.cut for m in new)
        self._queue(TraceEntry(self.owner.task_id, entry, step_id, _now(), detail, cut), new)

    def tool_call(
        self,
        step_id: str,
        invocation: Invocation,
        result: ToolCallResult,
        *,
        source: ToolSource = ToolSource.LIVE,
        child_task_id: str = "",
    ) -> None:
        """A finished tool call: `source` says where its result came from (LIVE: the tool
        ran; a replay says RECORDED or NOT_RUN), `child_task_id` the child that answered
        a delegation or a panel member's call, where the caller knows it."""
        traces = self.traces
        detail, cut = capture.tool_call(
            invocation,
            result,
            traces.arguments_key,
            traces.max_record_bytes,
            source,
            child_task_id,
        )
        self._queue(self._entry(step_id, detail, cut), [])

    def event(self, payload: ev.EventPayload) -> None:
        """An event the run wrote (redacted), kept when it is a verdict or a decision."""
        detail = capture.of_event(payload)
        if detail is not None:
            step_id = payload.step_id if isinstance(payload, ev.ReflectionVerdict) else ""
            self._queue(self._entry(step_id, detail, False), [])

    async def flush(self) -> None:
        """Return once what this run queued is written."""
        await self._recorder.flush()

    async def resume(self) -> None:
        """A later run of the task (woken, taken over) goes on from what its runs before
        kept: the task's cap counts them too, and a trace cut stays cut. A store out of
        reach leaves this run counting from nothing (it is logged)."""
        try:
            head = await self.traces.store.head(self.owner.task_id)
        except Exception:
            log.exception("could not read what a task's trace kept", task_id=self.owner.task_id)
            return
        if head is not None:
            self._bytes = max(self._bytes, head.bytes)
            self._cut = self._cut or head.cut

    def _entry(self, step_id: str, detail: TraceDetail, cut: bool) -> TraceEntry:
        return TraceEntry(self.owner.task_id, self.entry_id(), step_id, _now(), detail, cut)

    def _queue(self, entry: TraceEntry, messages: list[TracedMessage]) -> None:
        """Queue an entry and the messages it names first, within the task's cap: past
        it, nothing more is kept and the trace is marked cut (once)."""
        if self._cut:
            return
        weight = entry_bytes(entry) + sum(message_bytes(m) for m in messages)
        if self._bytes + weight > self.traces.max_task_bytes:
            self._cut = True
            self._recorder.keep(_Batch(self.owner, cut=True))
            return
        self._bytes += weight
        self._kept.update(m.message_id for m in messages)
        self._recorder.keep(_Batch(self.owner, [entry], messages, fresh=self._fresh))
        self._fresh = False


def _now() -> datetime:
    return datetime.now(UTC)
