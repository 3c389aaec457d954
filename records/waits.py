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
ends, so a task resumed again from the same checkpoint reads the same answer. An approval
opened under an approval rule (`records.tools.approval_rules`) may, at its first deadline,
move to other roles with a new deadline instead (`Escalation`, once), and may be reminded
of before each deadline (`remind_at`).

The open waits for a person are an inbox (`PendingQuery`): listed oldest first to those
who may answer them (`Audience`), across tasks and task trees.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
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
    """What happens when a wait's deadline passes (`AGENTD_WAIT_DEADLINE_ACTIONS`; an
    approval's from its approval rule)."""

    DENY = "deny"
    """The call is refused (an approval) or fails (a question): the model is told, and the
    task goes on."""
    FAIL = "fail"
    """The task ends FAILED (WAIT_DEADLINE)."""
    CANCEL = "cancel"
    """The task ends CANCELLED."""
    APPROVE = "approve"
    """An approval's call runs, recorded as a timeout (never as a person's consent). Only
    from an approval rule."""
    ESCALATE = "escalate"
    """An approval moves to other roles with a new deadline (`Wait.escalation`). Only from
    an approval rule, and only at its first deadline."""


SERVER_ACTIONS = (WaitAction.DENY, WaitAction.FAIL, WaitAction.CANCEL)
"""What `AGENTD_WAIT_DEADLINE_ACTIONS` may set (the others are an approval rule's)."""

TIMED_OUT = "timed_out"
"""The key an answer left by a deadline holds (true): an approval a rule approves at its
deadline is answered so, never as a person's consent."""


@dataclass(frozen=True, slots=True)
class Escalation:
    """Where an open approval moves when its first deadline passes (its rule's ESCALATE)."""

    roles: tuple[str, ...]
    """The roles that may decide from then on."""
    deadline_seconds: float
    """How long they have, from the move."""
    on_deadline: WaitAction
    """What their deadline does (DENY, APPROVE, FAIL or CANCEL)."""
    remind_before_seconds: float | None = None
    """A reminder this long before their deadline; None: none."""
    latest: datetime | None = None
    """The latest their deadline may be: when the task's wait limit runs out."""


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
    roles_by_rule: bool = False
    """Its `roles` are an approval rule's: their holders decide, whatever the role table
    says (else the role table's approvers among `roles` do)."""
    remind_at: datetime | None = None
    """When a reminder of it is due; None: none, or sent."""
    escalation_level: int = 0
    """0 while with the roles first asked; 1 once escalated."""
    escalation: Escalation | None = None
    """Where it moves at its deadline (`on_deadline` ESCALATE); None once it moved."""

    @property
    def done(self) -> bool:
        """Whether the wait ended (answered or expired), taken in or not."""
        return self.state is not WaitState.OPEN

    @property
    def timed_out(self) -> bool:
        """Whether its deadline ended it (expired; taken in or not), never a person."""
        if self.state is WaitState.EXPIRED:
            return True
        if self.state is not WaitState.CLOSED:
            return False
        return self.answer is None or self.answer.get(TIMED_OUT) is True

    @property
    def escalates(self) -> bool:
        """Whether its deadline moves it to other roles rather than ending it."""
        return self.on_deadline is WaitAction.ESCALATE and self.escalation is not None

    def escalated(self, now: datetime) -> Wait:
        """The wait moved to its escalation's roles at `now`: their deadline (capped by the
        task's wait limit), action and reminder, escalation level 1."""
        step = self.escalation
        assert step is not None
        deadline = now + timedelta(seconds=step.deadline_seconds)
        if step.latest is not None:
            deadline = min(deadline, step.latest)
        return replace(
            self,
            roles=step.roles,
            roles_by_rule=True,
            deadline_at=deadline,
            on_deadline=step.on_deadline,
            remind_at=remind_at(now, deadline, step.remind_before_seconds),
            escalation_level=self.escalation_level + 1,
            escalation=None,
        )

    @property
    def deadline_outcome(self) -> str:
        """What its deadline did (or does), as events, the audit and the inbox's history
        name it: denied, approved, failed or cancelled (escalated is a move, not an end).
        A resume's call cannot go on unresumed: failed, unless its task is cancelled."""
        action = self.on_deadline
        if action is WaitAction.CANCEL:
            return "cancelled"
        if action is WaitAction.FAIL or self.kind is WaitKind.RESUME:
            return "failed"
        if action is WaitAction.APPROVE and self.kind is WaitKind.APPROVAL:
            return "approved"
        return "denied"


def remind_at(now: datetime, deadline: datetime | None, before: float | None) -> datetime | None:
    """When to remind of a wait whose deadline is `deadline`, `before` seconds ahead; None
    without a deadline or a reminder, or when that moment is not after `now`."""
    if deadline is None or before is None:
        return None
    at = deadline - timedelta(seconds=before)
    return at if at > now else None


PERSON_KINDS = frozenset(kind for kind in WaitKind if kind.for_person)
"""The kinds of wait a person answers (APPROVAL, QUESTION, RESUME, BUDGET)."""


@dataclass(frozen=True, slots=True)
class Audience:
    """Which open waits for a person one caller may answer, kind by kind: every wait of a
    kind in `anyone`; a wait of a kind in `by_role` whose `roles` hold one of `roles`; a
    wait of a kind in `by_rule` whose roles are an approval rule's (`roles_by_rule`) and
    hold one of `roles`; a wait of a kind in `owned` whose task `owner` started
    (`agent.scheduling.inbox` builds it from the caller and the role table)."""

    anyone: frozenset[WaitKind] = frozenset()
    by_role: frozenset[WaitKind] = frozenset()
    roles: tuple[str, ...] = ()
    """The caller's roles; only well-formed role names (`core.names`) match a wait's."""
    owned: frozenset[WaitKind] = frozenset()
    owner: str = ""
    by_rule: frozenset[WaitKind] = frozenset()

    @property
    def matching_roles(self) -> tuple[str, ...]:
        """The roles a wait's roles are matched against: those that are role names (no
        key or token carries another, and a store may match them as whole JSON strings)."""
        return tuple(r for r in dict.fromkeys(self.roles) if identity_problem(r) is None)

    def narrowed(self, kinds: frozenset[WaitKind]) -> Audience:
        """This audience for waits of `kinds` only."""
        return Audience(
            self.anyone & kinds,
            self.by_role & kinds,
            self.roles,
            self.owned & kinds,
            self.owner,
            self.by_rule & kinds,
        )

    def admits(self, wait: Wait) -> bool:
        """Whether the caller may answer `wait` (of any state)."""
        kind = wait.kind
        held = not set(wait.roles).isdisjoint(self.matching_roles)
        return (
            kind in self.anyone
            or (kind in self.by_role and held)
            or (kind in self.by_rule and wait.roles_by_rule and held)
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
