"""The shape of a checkpoint: what a process needs to resume another process's task.

`RunCheckpoint` is written (through `records.serialization`) after every completed
step, and when the task parks (`parked_at`). Each mode keeps its own state in
`mode_state` (`records.mode_state`), built from copies so that a later change in the
running task never leaks into a checkpoint already taken. The tool-call journal
records every call of a tool that may not be repeated: an entry is written before the
call runs and replaced when it finishes, so a resumed task knows which calls ran, which
finished (their results are reused) and which were cut off (their outcome is unknown
and they are not repeated). It also keeps, when the task parks, the results of the
calls that finished beside the ones that wait, and the calls that wait.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.identity import Principal
from records.conversations.history import History
from records.events import ArtifactUpdated
from records.mode_state import ModeState
from records.parts import ImagePart
from records.tasks import Citation, TokenUsage


@dataclass(frozen=True, slots=True)
class JournalEntry:
    """One call of a tool that may not be repeated."""

    call_id: str
    tool_name: str
    finished: bool
    ok: bool = False
    text: str = ""
    data: Any = None
    resume_by: float = 0.0
    """Set while the call, failed for a reason a person can fix, waits for ResumeTask:
    the end of its resume window (epoch seconds). A resumed run waits again."""
    waiting: str = ""
    """Set while the call waits (its task parked): the slot of its wait
    (`records.waits`). The woken run makes the same call again, under the same call id
    and with the same `arguments`, and reads what ended the wait."""
    arguments: dict[str, Any] | None = None
    """A waiting call's arguments as it was made (after an approver's edit, the edited
    ones are the wait's answer)."""
    relayed: tuple[str, ...] = ()
    """A waiting delegation's: the child's waits for a person already announced."""
    handed_on: bool = False
    """A waiting call of a tool the engine runs itself (`ask_user`, a delegation, a
    panel) that the registry admitted and audited before it parked: the woken run runs
    it without admitting it again."""
    images: tuple[ImagePart, ...] = ()
    """A finished call's images (kept artifacts) shown with its result: a resumed run
    shows them again."""


@dataclass(frozen=True, slots=True)
class TakenSteer:
    """A user message a run took while it worked (`agent.running.steering`)."""

    sequence: int
    """The sequence of its `task_steered` event in the task's log."""
    steer_id: str
    message: str


@dataclass(frozen=True, slots=True)
class RunCheckpoint:
    """A task's progress at its last completed step."""

    principal: Principal
    token_budget: int
    deadline_at: float | None
    """Wall-clock time (epoch seconds) after which the task stops; None without a deadline."""
    usage: TokenUsage
    completed_steps: int
    notes: tuple[str, ...] = ()
    journal: dict[str, JournalEntry] = field(default_factory=dict)
    url_token: str = ""
    """The run's URL placeholder token (`agent.running.urls`)."""
    urls: dict[str, str] = field(default_factory=dict)
    """The URLs the model knows by placeholder."""
    mode_state: ModeState | dict[str, Any] | None = None
    """The mode's state (a dict in checkpoints of earlier versions)."""
    history: History | None = None
    """The earlier turns of the task's conversation it is sent (once chosen)."""
    failed_in_a_row: int = 0
    """Tool calls that had failed one after another (`agent.tool_use.calls.FAILURES`)."""
    parked_at: float | None = None
    """Set when the task parked (epoch seconds): it waits, and this checkpoint is where it
    picks up when woken. The wait does not count against its time limit."""
    waited_seconds: float = 0.0
    """How long the task has waited parked in all, before this park (its wait limit)."""
    citations: tuple[Citation, ...] = ()
    """The passages its `search_knowledge` calls retrieved so far (its answer's citations)."""
    artifacts_written: tuple[ArtifactUpdated, ...] = ()
    """The artifact versions it wrote so far (named in its final answer)."""
    steers: tuple[TakenSteer, ...] = ()
    """The steers it took so far, in order, as far as its mode's state holds them: a
    resumed run takes only those after the last one."""
