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

The open waits for a person are an inbox (`PendingQuery`): listed oldest first to those
who may answer them (`Audience`), across tasks and task trees.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from core.names import identity_problem
from records.paging import TimeKeyCursor


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


PERSON_KINDS = frozenset(kind for kind in WaitKind if kind.for_person)
"""The kinds of wait a person answers (APPROVAL, QUESTION, RESUME, BUDGET)."""


@dataclass(frozen=True, slots=True)
class Audience:
    """Which open waits for a person one caller may answer, kind by kind: every wait of a
    kind in `anyone`; a wait of a kind in `by_role` whose `roles` hold one of `roles`; a
    wait of a kind in `owned` whose task `owner` started (`agent.scheduling.inbox` builds
    it from the caller and the role table)."""

    anyone: frozenset[WaitKind] = frozenset()
    by_role: frozenset[WaitKind] = frozenset()
    roles: tuple[str, ...] = ()
    """The caller's roles; only well-formed role names (`core.names`) match a wait's."""
    owned: frozenset[WaitKind] = frozenset()
    owner: str = ""

    @property
    def matching_roles(self) -> tuple[str, ...]:
        """The roles a wait's roles are matched against: those that are role names (no
        key or token carries another, and a store may match them as whole JSON strings)."""
        return tuple(r for r in dict.fromkeys(self.roles) if identity_problem(r) is None)

    def narrowed(self, kinds: frozenset[WaitKind]) -> Audience:
        """This audience for waits of `kinds` only."""
        return Audience(
            self.anyone & kinds, self.by_role & kinds, self.roles, self.owned & kinds, self.owner
        )

    def admits(self, wait: Wait) -> bool:
        """Whether the caller may answer `wait` (of any state)."""
        kind = wait.kind
        return (
            kind in self.anyone
            or (kind in self.by_role and not set(wait.roles).isdisjoint(self.matching_roles))
            or (kind in self.owned and bool(self.owner) and wait.owner == self.owner)
        )


@dataclass(frozen=True, slots=True)
class PendingQuery:
    """Which open waits for a person to list (`WaitStore.pending`): a page of the tenant's
    waits that `audience` may answer, oldest first (by creation, then task id and slot)."""

    tenant: str
    audience: Audience = Audience()
    """Who asks: only the waits it may answer (one left out admits none)."""
    agent: str = ""
    """Only waits of tasks run as the agent of this id (any version); "": any agent."""
    agent_version: int | None = None
    """With `agent`: only those run as this version of it."""
    root_task_id: str = ""
    """Only waits of the task tree under this top task (itself included); "": any."""
    limit: int = 50
    after: TimeKeyCursor | None = None
    """Where the page starts: after the last wait of the previous page."""

    @property
    def agent_reference(self) -> str:
        """`id@version` with a version, else "" (`agent` alone names any version)."""
        return f"{self.agent}@{self.agent_version}" if self.agent_version is not None else ""

    def matches(self, wait: Wait) -> bool:
        """Whether `wait` is on this list (at any page): open, of the tenant, answerable by
        the audience, of the agent and tree asked for."""
        if wait.tenant != self.tenant or wait.state is not WaitState.OPEN:
            return False
        if not wait.kind.for_person or not self.audience.admits(wait):
            return False
        if self.agent_reference:
            if wait.agent != self.agent_reference:
                return False
        elif self.agent and not wait.agent.startswith(f"{self.agent}@"):
            return False
        return not self.root_task_id or wait.root_task_id == self.root_task_id


def wait_cursor(wait: Wait) -> TimeKeyCursor:
    """The cursor after `wait` in a list of waits oldest first."""
    return TimeKeyCursor(wait.created_at, wait.task_id, wait.slot)


def wait_order(wait: Wait) -> tuple[datetime, str, str]:
    """A wait's place in a list oldest first (its cursor's fields)."""
    return wait.created_at, wait.task_id, wait.slot
