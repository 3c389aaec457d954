"""Wait records: what a parked task waits for, who may answer it, and by when.

A task that must wait — for a person's decision or answer, for its child tasks, for a
remote agent, for its turn in a conversation, for ResumeTask after a resumable failure —
gives up its running place and is parked (`agent.scheduling.parking`). Each thing it
waits for is one `Wait`, kept durably (`stores.waits`), keyed by the task and a slot (a
call id, `question:<call id>`, `resume`, a child task's id, `turn`). Whatever ends a wait
(an approval, an answer, a child's end, the remote's update, its deadline) writes it
here first, then wakes the task, which reads it on waking.

A wait moves OPEN -> ANSWERED (an answer was left) or EXPIRED (its deadline passed),
then CLOSED once the woken task has taken it in; it keeps its answer until its task
ends, so a task resumed again from the same checkpoint reads the same answer.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any


class WaitKind(enum.Enum):
    """What a task waits for."""

    APPROVAL = "approval"
    """A person's decision on a tool call that needs approval (ApproveToolCall)."""
    QUESTION = "question"
    """A person's answer to the agent's question (ProvideInput)."""
    RESUME = "resume"
    """ResumeTask after a tool call failed for a reason a person can fix."""
    CHILD = "child"
    """A child task's end (a delegation or a panel member)."""
    REMOTE = "remote"
    """A remote A2A agent's task moving on (followed by polling it)."""
    TURN = "turn"
    """Its turn in its conversation (the tasks before it ending)."""
    BUDGET = "budget"
    """A person's approval to go past a budget's soft limit (ApproveToolCall, slot
    `budget:<budget id>`)."""

    @property
    def for_person(self) -> bool:
        """Whether a person answers it (the task is INPUT_REQUIRED meanwhile)."""
        return self in (WaitKind.APPROVAL, WaitKind.QUESTION, WaitKind.RESUME, WaitKind.BUDGET)


class WaitState(enum.Enum):
    OPEN = "open"
    ANSWERED = "answered"
    EXPIRED = "expired"
    """Its deadline passed before an answer came (never a person's answer)."""
    CLOSED = "closed"
    """The woken task took its answer (or its expiry) in."""


class WaitAction(enum.Enum):
    """What happens when a wait's deadline passes (`AGENTD_WAIT_DEADLINE_ACTIONS`)."""

    DENY = "deny"
    """The call is refused (an approval) or fails (a question): the model is told, and the
    task goes on."""
    FAIL = "fail"
    """The task ends FAILED (WAIT_DEADLINE)."""
    CANCEL = "cancel"
    """The task ends CANCELLED."""


@dataclass(frozen=True, slots=True)
class Wait:
    """One thing one parked task waits for."""

    tenant: str
    task_id: str
    slot: str
    """What is waited for, unique within the task: a call id, `question:<call id>`,
    `resume`, a child task's id, a remote task's id, `turn`."""
    kind: WaitKind
    created_at: datetime
    root_task_id: str = ""
    """The top task of its tree (its own id for a top task)."""
    agent: str = ""
    """The task's agent (`id@version`), "" for the default agent."""
    owner: str = ""
    """Who started the task (answers its questions and ResumeTask without a role)."""
    roles: tuple[str, ...] = ()
    """Roles that may answer it (approvers), besides what the role table grants."""
    tool_name: str = ""
    detail: str = ""
    """What is asked: the call's redacted arguments (JSON), the question, the child's
    goal, the remote's last message."""
    deadline_at: datetime | None = None
    on_deadline: WaitAction = WaitAction.DENY
    state: WaitState = WaitState.OPEN
    answer: dict[str, Any] | None = field(default=None, compare=False)
    """The answer left (an approval's decision, a question's text, a child's status)."""
    answered_by: str = ""
    answered_at: datetime | None = None
    changes: int = 0
    """Bumped when what is waited for moved on without ending (a child began or stopped
    waiting for a person): the woken task looks at it again."""
    check_at: datetime | None = None
    """For a wait that is followed by polling (a remote task): when to look next."""
    checks: int = 0
    """Polls made so far (the backoff grows with them)."""

    @property
    def done(self) -> bool:
        """Whether the wait ended (answered or expired), taken in or not."""
        return self.state is not WaitState.OPEN
