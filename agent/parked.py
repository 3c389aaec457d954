"""The signal that ends a run's turn while its task waits: `Parked`.

A call that must wait (for a person's decision or answer, a child task, a remote agent,
ResumeTask) opens its wait record (`records.waits`) and raises `Parked`. The calls of the
same batch finish first, their results kept for the task's return (`agent.tool_use.calls`);
then the signal reaches the runner (`agent.scheduling.execution`), which checkpoints the
task, gives back its running place and parks it (`agent.scheduling.parking`). Whatever
ends the wait wakes the task, on any replica, and the run picks up at the same calls:
those that finished are not run again, and the one that waited reads what ended its wait.

It is a control-flow signal, not a failure: nothing between the call and the runner
catches it but what must let sibling work finish first.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from dataclasses import dataclass
from typing import TypeVar

from records.waits import WaitKind

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Waiting:
    """One thing a parking run waits for."""

    kind: WaitKind
    slot: str
    person: bool
    """Whether a person is needed (the task waits INPUT_REQUIRED): a person's decision or
    answer, or a child task that itself waits for one."""
    changes: int = 0
    """The wait's `changes` when the run looked (a nudge since then wakes it at once)."""
    detail: str = ""
    """What the task's status says it waits for."""


class Parked(Exception):  # noqa: N818 - a signal, not an error
    """The run stops here until what it waits for moves on."""

    def __init__(self, waits: Iterable[Waiting], relayed: tuple[str, ...] = ()) -> None:
        self.waits = tuple(waits)
        self.relayed = relayed
        """A delegation's: the child's waits for a person it has announced already."""
        super().__init__(", ".join(f"{w.kind.value} {w.slot}" for w in self.waits))

    @property
    def person(self) -> bool:
        return any(w.person for w in self.waits)

    @staticmethod
    def merged(parked: Iterable[Parked]) -> Parked:
        """One signal for several calls that wait (a batch, a panel)."""
        signals = list(parked)
        relayed = tuple(sorted({slot for p in signals for slot in p.relayed}))
        waits: dict[str, Waiting] = {}
        for wait in (w for p in signals for w in p.waits):  # one per slot: a person's first
            known = waits.get(wait.slot)
            if known is None or (wait.person and not known.person):
                waits[wait.slot] = wait
        return Parked(waits.values(), relayed)


async def parked_or(work: Awaitable[T]) -> T | Parked:
    """`work`'s result, or the Parked it raised: the work beside it goes on (a batch of
    calls, ready plan steps, a panel's members), then the run parks."""
    try:
        return await work
    except Parked as parked:
        return parked
