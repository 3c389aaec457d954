"""What the ReAct modes share: a loop of iterations run until one answers
(`until_answered`), and the watch on a call repeated once too often (`RepeatWatch`)."""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Protocol

from agent.limits import LimitReached
from agent.running.answers import Outcome
from records.tasks import StopReason


class Iterations(Protocol):
    """A ReAct loop: the iterations it runs, each possibly ending it with an outcome."""

    first: int
    limit: int

    async def iterate(self, iteration: int) -> Outcome | None: ...


async def until_answered(loop: Iterations, no_answer: str) -> Outcome:
    """Run the loop's iterations until one gives an outcome; LimitReached(MAX_ITERATIONS)
    with `no_answer` when none does within the limit."""
    for iteration in range(loop.first, loop.limit + 1):
        outcome = await loop.iterate(iteration)
        if outcome is not None:
            return outcome
    raise LimitReached(StopReason.MAX_ITERATIONS, no_answer)


class RepeatWatch:
    """The latest calls a model asked for (tool and canonical arguments): the same one
    `limit` times in a row stops the loop (REPEATED_TOOL_CALL)."""

    def __init__(self, limit: int, recent: Iterable[str] = ()) -> None:
        self.limit = limit
        self.recent: deque[str] = deque(recent, maxlen=limit)

    def saw(self, tool: str, key: str) -> None:
        self.recent.append(key)
        if len(self.recent) == self.limit and len(set(self.recent)) == 1:
            raise LimitReached(
                StopReason.REPEATED_TOOL_CALL,
                f"the model called {tool} with the same arguments {self.limit} times in a row",
            )
