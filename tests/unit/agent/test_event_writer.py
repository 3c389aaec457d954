"""Deltas are coalesced into fewer events without changing what a reader sees, in order."""

from __future__ import annotations

import asyncio

from agent.running.event_writer import EventWriter
from records import events as ev
from records.tasks import StopReason, TaskStatus


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
    await writer.emit(ev.StepFinished("s2", True, "done", 0.1))
    assert log.events[:-1] == [
        ev.ReasoningDelta("s1", "think more"),
        ev.TextDelta("s1", "say"),
        ev.TextDelta("s2", "other"),
    ]


async def test_a_full_delta_goes_out_at_once_and_a_quiet_one_after_the_window() -> None:
    log = Log()
    writer = EventWriter(log.append, flush_seconds=0.05, max_chars=10)
    await writer.emit(ev.TextDelta("s", "0123456 789abc "))  # over max_chars: written now
    assert log.events == [ev.TextDelta("s", "0123456 789abc ")]
    await writer.emit(ev.TextDelta("s", "tail end"))
    assert len(log.events) == 1
    await asyncio.sleep(0.2)  # the model went quiet: the window closes it
    assert log.events[-1] == ev.TextDelta("s", "tail ")  # "end" may still grow into a key
    await writer.emit(ev.StepFinished("s", True, "done", 0.1))
    assert log.events[-2] == ev.TextDelta("s", "end")


async def test_without_a_window_every_chunk_is_an_event() -> None:
    log = Log()
    writer = EventWriter(log.append, flush_seconds=0, max_chars=10)
    for piece in ("a ", "b ", "c "):
        await writer.emit(ev.TextDelta("s", piece))
    await writer.emit(ev.StatusChanged(TaskStatus.COMPLETED, TaskStatus.RUNNING))
    assert [type(e) for e in log.events] == [ev.TextDelta] * 3 + [ev.StatusChanged]


KEY = "sk-proj-abcdefghijklmnopqrstuvwxyz012345"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGljZSJ9.c2lnbmF0dXJlLW9mLXRoZQ"


async def test_a_key_split_across_deltas_never_reaches_the_log() -> None:
    for flush_seconds in (0, 10.0):
        log = Log()
        writer = EventWriter(log.append, flush_seconds=flush_seconds, max_chars=8)
        text = f"Use the key {KEY} to call it."
        for i in range(0, len(text), 3):
            await writer.emit(ev.TextDelta("s", text[i : i + 3]))
            await writer.flush()
        await writer.emit(ev.StepFinished("s", True, "done", 0.1))
        streamed = "".join(e.text for e in log.events if isinstance(e, ev.TextDelta))
        assert streamed == "Use the key [REDACTED] to call it."
        assert all(KEY[:12] not in repr(e) for e in log.events)


async def test_tool_results_answers_and_errors_are_scrubbed_before_the_log() -> None:
    log = Log()
    writer = EventWriter(log.append, flush_seconds=0, max_chars=10)
    await writer.emit(
        ev.ToolCallFinished(
            "c1", "http_request", {"body": f"token {JWT}", "n": 1}, None, 0.1, f"got {JWT}"
        )
    )
    await writer.emit(ev.StepFinished("s", True, f"the key is {KEY}", 0.1))
    await writer.emit(ev.FinalAnswer(f"Here: {KEY}", StopReason.FINAL_ANSWER))
    await writer.emit(ev.ErrorOccurred("TOOL_FAILED", f"refused Bearer {JWT}", False))
    assert len(log.events) == 4
    for event in log.events:
        assert KEY not in repr(event)
        assert JWT not in repr(event)
        assert "[REDACTED]" in repr(event)
    finished = log.events[0]
    assert isinstance(finished, ev.ToolCallFinished)
    assert finished.result["n"] == 1
