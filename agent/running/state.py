"""What a run knows of its own standing: whether it is a stored task, where it is
checkpointed and parked, what it picks up (`RunState`); and what bounds it, the tokens and
the time it has (`RunBounds`)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field

from agent.notices import NoNotices, Notices
from agent.recording.recorder import RunRecording
from records.checkpoints import RunCheckpoint
from records.mode_state import ModeState, from_legacy
from stores.checkpoints.base import CheckpointStore
from stores.waits.base import WaitStore


@dataclass(slots=True)
class RunBounds:
    """The tokens and the time a run has."""

    token_budget: int
    """Tokens the task may spend in all."""
    deadline_at: float | None = None
    """Wall-clock time (epoch seconds) of the caller's deadline, if it set one."""
    waited: float = 0.0
    """Seconds it waited parked before this run (its wait limit counts them)."""


@dataclass(slots=True)
class RunState:
    """Whether a run is a stored task's, where its progress is kept and its waits, what it
    resumes from, and the mode's state as it stands."""

    persist: bool = True
    """False for work that is not a stored task (the Plan RPC): no events, no saves."""
    checkpoints: CheckpointStore | None = None
    """Where progress is checkpointed; None when no other process could resume the task."""
    resumed: RunCheckpoint | None = None
    """The checkpoint this run resumes from, if it does."""
    waits: WaitStore | None = None
    """Where its waits are kept (`records.waits`): what a person, a child or a remote
    agent leaves there wakes it. None: it cannot wait (calls needing a person are
    refused)."""
    nudge: Callable[[str, str, str], Awaitable[None]] | None = None
    """Nudges a parked task's wait (tenant, task, slot): a child's parent, when the child
    begins or stops waiting for a person (`agent.scheduling.parking`)."""
    notices: Notices = field(default_factory=NoNotices)
    """Who is told of its status changes and of its waits' steps (`agent.notices`)."""
    pending: ModeState | None = None
    """The mode's state as the model asked for the calls being made (not yet a checkpoint):
    what a call that waits for ResumeTask is checkpointed with (`agent.tool_use.resume`)."""
    recording: RunRecording | None = None
    """Where its durable trace is recorded (`agent.recording`); None: none is kept."""
    mode: ModeState | None = field(init=False)
    """The mode's state at its last checkpoint."""
    lock: asyncio.Lock = field(init=False, default_factory=asyncio.Lock)
    """Held while a checkpoint is written (one at a time)."""

    def __post_init__(self) -> None:
        self.mode = self.resume_state()

    @property
    def durable(self) -> bool:
        """Whether progress is checkpointed for another process to resume."""
        return self.persist and self.checkpoints is not None

    @property
    def can_wait(self) -> bool:
        """Whether the run may park to wait (a stored task with a wait store)."""
        return self.persist and self.waits is not None

    @property
    def woken(self) -> bool:
        """Whether this run picks a parked task up where it waited (not a takeover)."""
        return self.resumed is not None and self.resumed.parked_at is not None

    def resume_state(self) -> ModeState | None:
        """The mode's state at the checkpoint this run resumes from (None for a new run)."""
        saved = self.resumed.mode_state if self.resumed is not None else None
        return from_legacy(saved) if isinstance(saved, dict) else saved
