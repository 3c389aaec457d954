"""Steers: user messages added to a task while it works (`SteerTask`), taken at safe points.

A steer is written to the task's log first (a `task_steered` event, by whichever replica
received it); then the replica running the task is nudged. The run never relies on the
nudge alone: each event it appends comes back with the log's next sequence, and one
beyond the sequence it expected means something else was written to the log meanwhile (a
steer, a person's answer). A run that picks up a task with a log already (woken, taken
over) and a run about to give its answer look at the log itself.

At a safe point (after the tool calls being made, before the next model call) `take`
reads the log after what it last read and returns the steers not taken yet, in their
order, each announced (`steer_applied`). A run's checkpoint keeps the steers its mode's
state holds (`RunCheckpoint.steers`): a resumed run takes only the later ones.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence

from records import events as ev
from records.checkpoints import TakenSteer
from records.tasks import Task
from stores.tasks.base import TaskStore, logged

Taken = Callable[[TakenSteer, str], Awaitable[TakenSteer]]
"""Announces a steer taken at a step (its event, its place in the task's turn); the steer
as it goes on (its message checked by the task's input guardrails)."""


class Steering:
    """The steers of one run: those it took, and whether the log may hold new ones."""

    __slots__ = ("_flagged", "_looked", "_on_taken", "_store", "_task", "saved", "taken")

    def __init__(self, store: TaskStore, task: Task, on_taken: Taken) -> None:
        self._store = store
        self._task = task
        self._on_taken = on_taken
        self._flagged = task.last_sequence > 0
        """A task with a log already (taken over before its first checkpoint) may have
        been steered before this run: its first safe point looks. A new task's log
        begins with this run's first event, so a gap shows any steer."""
        self._looked = 0
        """The log has been read for steers through this sequence."""
        self.taken: list[TakenSteer] = []
        """The steers taken, in order."""
        self.saved = 0
        """How many of `taken` the mode's last checkpointed state holds."""

    def resume(self, steers: Sequence[TakenSteer]) -> None:
        """Pick up after a checkpoint: its steers are taken; the log is read again from the
        last of them (steers may have come while the task waited or changed hands)."""
        self.taken = list(steers)
        self.saved = len(self.taken)
        self._looked = self.through
        self._flagged = True

    @property
    def through(self) -> int:
        """The sequence of the last steer taken (0: none)."""
        return self.taken[-1].sequence if self.taken else 0

    def nudge(self) -> None:
        """A steer was written to the log (told by the replica that received it)."""
        self._flagged = True

    def appended(self, expected: int, sequence: int) -> None:
        """The run's event got `sequence` where it expected `expected`: a later one means
        something else was written to the log in between."""
        if sequence > expected:
            self._flagged = True

    def kept(self, with_mode_state: bool) -> tuple[TakenSteer, ...]:
        """The steers a checkpoint keeps: those its mode's state holds (all of them when
        the state is the one being built now)."""
        if with_mode_state:
            self.saved = len(self.taken)
        return tuple(self.taken[: self.saved])

    async def take(self, step_id: str, *, look: bool = False) -> list[TakenSteer]:
        """The steers not taken yet, in order (each announced as taken at `step_id`). The
        log is read when a nudge or a gap says it may hold one, or when `look` is set."""
        if not (self._flagged or look):
            return []
        self._flagged = False
        task = self._task
        stored = await self._store.get(task.tenant, task.task_id)
        upper = stored.last_sequence
        if upper <= self._looked:
            return []
        found = [
            TakenSteer(event.sequence, event.payload.steer_id, event.payload.message)
            for event in await logged(self._store, task.tenant, task.task_id, self._looked, upper)
            if isinstance(event.payload, ev.TaskSteered) and event.sequence > self.through
        ]
        self._looked = upper
        kept = []
        for steer in found:
            steer = await self._on_taken(steer, step_id)
            self.taken.append(steer)
            kept.append(steer)
        return kept
