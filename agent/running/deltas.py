"""A streamed model reply as `text_delta` and `reasoning_delta` events (`agent.running.run`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from agent.llm import sanitize
from agent.llm.base import ModelError
from agent.running.transcript import Transcript
from records import events as ev
from records.messages import Discarded, Done, ModelResponse, ReasoningChunk, TextChunk

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from records.messages import StreamItem


class StreamingRun(Protocol):
    """What streaming a reply needs of its run (`agent.running.run.TaskRun`, which calls this
    module)."""

    transcript: Transcript


async def streamed(
    run: StreamingRun, items: AsyncIterator[StreamItem], step_id: str
) -> ModelResponse:
    """A streamed reply's response, its text and reasoning sent as delta events; a
    provider that failed mid-reply and was replaced (`Discarded`) voids what it sent."""
    response: ModelResponse | None = None
    deltas = Deltas(run, step_id)
    async for item in items:
        if isinstance(item, TextChunk | ReasoningChunk):
            await deltas.add(item)
        elif isinstance(item, Discarded):  # another provider starts over
            await deltas.finish()
            deltas = Deltas(run, step_id)
            await run.transcript.emit(
                ev.StreamDiscarded(step_id, item.provider, item.model, item.reason)
            )
        elif isinstance(item, Done):
            response = item.response
    await deltas.finish()
    if response is None:
        raise ModelError("the model stream ended without a response")
    return response


class Deltas:
    """One streamed reply as delta events: text and reasoning each cut at the reply's size
    cap (the rest is not sent), URL placeholders restored."""

    def __init__(self, run: StreamingRun, step_id: str) -> None:
        self._run = run
        self._step_id = step_id
        self._sizes = [0, 0]  # text, reasoning characters so far
        self._restorers = (run.transcript.urls.streamer(), run.transcript.urls.streamer())
        self._kind = 0

    async def add(self, item: TextChunk | ReasoningChunk) -> None:
        kind = 0 if isinstance(item, TextChunk) else 1
        if kind != self._kind:  # what the other kind held back goes out first
            await self._send(self._kind, self._restorers[self._kind].flush())
            self._kind = kind
        if self._sizes[kind] < sanitize.MAX_REPLY_CHARS:  # past the cap nothing is sent
            await self._send(kind, self._restorers[kind].feed(sanitize.text(item.text)))

    async def finish(self) -> None:
        for kind in (0, 1):
            await self._send(kind, self._restorers[kind].flush())

    async def _send(self, kind: int, text: str) -> None:
        """`text` (URLs restored) as a delta, cut to what the cap leaves, and counted."""
        piece = text[: max(0, sanitize.MAX_REPLY_CHARS - self._sizes[kind])]
        self._sizes[kind] += len(piece)
        if piece:
            delta = ev.TextDelta if kind == 0 else ev.ReasoningDelta
            await self._run.transcript.emit(delta(self._step_id, piece))
