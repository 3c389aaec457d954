"""Deltas are coalesced into fewer events without changing what a reader sees, in order."""

from __future__ import annotations

import asyncio

from agent import events as ev
from agent.event_writer import EventWriter
from agent.tasks import TaskStatus


class Log:
    def __init__(self) -> None:
        self.events: list[ev.EventPayload] = []

    async def append(self, payload: ev.EventPayload) -> None:
        self.events.append(payload)


async def test_deltas_within_the_window_become_one_event_before_the_next_one() -> None:
    log = Log()
    writer = EventWriter(log.append, flush_seconds=10.0, max_chars=1000)
    for piece in ("The ", "answer ", "is ", "42."):
        await writer.emit(ev.TextDelta("s1", piece))
    await writer.emit(ev.StepFinished("s1", True, "done", 0.1))
    assert log.events == [
        ev.TextDelta("s1", "The answer is 42."),
        ev.StepFinished("s1", True, "done", 0.1),
    ]


async def test_a_change_of_kind_or_step_keeps_the_order() -> None:
    log = Log()
    writer = EventWriter(log.append, flush_seconds=10.0, max_chars=1000)
    await writer.emit(ev.ReasoningDelta("s1", "think "))
    await writer.emit(ev.ReasoningDelta("s1", "more"))
    await writer.emit(ev.TextDelta("s1", "say"))
    await writer.emit(ev.TextDelta("s2", "other"))
    await writer.flush()
    assert log.events == [
        ev.ReasoningDelta("s1", "think more"),
        ev.TextDelta("s1", "say"),
        ev.TextDelta("s2", "other"),
    ]


async def test_a_full_delta_goes_out_at_once_and_a_quiet_one_after_the_window() -> None:
    log = Log()
    writer = EventWriter(log.append, flush_seconds=0.05, max_chars=10)
    await writer.emit(ev.TextDelta("s", "0123456789abc"))  # over max_chars: written now
    assert log.events == [ev.TextDelta("s", "0123456789abc")]
    await writer.emit(ev.TextDelta("s", "tail"))
    assert len(log.events) == 1
    await asyncio.sleep(0.2)  # the model went quiet: the window closes it
    assert log.events[-1] == ev.TextDelta("s", "tail")


async def test_without_a_window_every_chunk_is_an_event() -> None:
    log = Log()
    writer = EventWriter(log.append, flush_seconds=0, max_chars=10)
    for piece in ("a", "b", "c"):
        await writer.emit(ev.TextDelta("s", piece))
    await writer.emit(ev.StatusChanged(TaskStatus.COMPLETED, TaskStatus.RUNNING))
    assert [type(e) for e in log.events] == [ev.TextDelta] * 3 + [ev.StatusChanged]
