"""The inbox's history: what became of each wait for a person, kept after the wait is
forgotten (its task ended) — opened, reminded, escalated, answered by whom, timed out and
what the deadline did (ListActionHistory).

An `ActionHistoryEntry` is one step of one wait (`records.inbox.steps.ActionStep`), as the
step left it: the roles and deadline from then on, who took it and with what outcome.
What the wait asked (a call's arguments, a question) is not kept: the history says what
happened, not what was asked. Entries are listed oldest first (`HistoryQuery`).

An entry's id is made of the step itself (task, request, kind of step, the deadline it
left), never of when it was recorded: a step taken again (a process died between the
step and what follows it) is the same entry, kept once.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime

from records.inbox.steps import ActionStep, ActionStepKind
from records.paging import TimeKeyCursor
from records.waits import WaitKind


@dataclass(frozen=True, slots=True)
class ActionHistoryEntry:
    """One step of one wait for a person."""

    entry_id: str
    """Made of the step (`entry_id`): the same step recorded twice has one id."""
    tenant: str
    task_id: str
    root_task_id: str
    """The top task of its tree (`task_id` itself for a top task)."""
    request_id: str
    """The wait's slot: what answers it (a call id, `question:<call id>`, ...)."""
    wait_kind: WaitKind
    step: ActionStepKind
    time: datetime
    tool_name: str = ""
    agent: str = ""
    """The task's agent (`id@version`), "" for the default agent."""
    actor: str = ""
    """ANSWERED: who answered; the deadline's steps: `records.inbox.steps.DEADLINE_ACTOR`."""
    outcome: str = ""
    roles: tuple[str, ...] = ()
    """The roles that may decide from this step on."""
    deadline_at: datetime | None = None
    """The deadline from this step on; None for none."""


def entry_id(
    tenant: str, task_id: str, request_id: str, step: ActionStepKind, deadline: datetime | None
) -> str:
    """The id of a step: a digest of the task, the request, the kind of step and the
    deadline it left (a reminder comes once per deadline), not of its time."""
    at = deadline.astimezone(UTC).isoformat() if deadline is not None else ""
    made = "\x1f".join((tenant, task_id, request_id, step.value, at))
    return hashlib.sha256(made.encode()).hexdigest()[:32]


def entry_of(step: ActionStep) -> ActionHistoryEntry:
    """The history's entry of `step` (what the wait asked is left out)."""
    wait = step.wait
    return ActionHistoryEntry(
        entry_id=entry_id(wait.tenant, wait.task_id, wait.slot, step.kind, wait.deadline_at),
        tenant=wait.tenant,
        task_id=wait.task_id,
        root_task_id=wait.root_task_id or wait.task_id,
        request_id=wait.slot,
        wait_kind=wait.kind,
        step=step.kind,
        time=step.time,
        tool_name=wait.tool_name,
        agent=wait.agent,
        actor=step.actor,
        outcome=step.outcome,
        roles=wait.roles,
        deadline_at=wait.deadline_at,
    )


@dataclass(frozen=True, slots=True)
class HistoryQuery:
    """A page of a tenant's history, oldest first (by time, then task id, then entry id),
    of one task or one task tree or all."""

    tenant: str
    task_id: str = ""
    """Only this task's entries; "": any task's."""
    root_task_id: str = ""
    """Only the entries of the task tree under this top task (itself included); "": any."""
    limit: int = 100
    after: TimeKeyCursor | None = None
    """Where the page starts: after the last entry of the previous page."""

    def matches(self, entry: ActionHistoryEntry) -> bool:
        """Whether `entry` is on this list (at any page)."""
        return (
            entry.tenant == self.tenant
            and (not self.task_id or entry.task_id == self.task_id)
            and (not self.root_task_id or entry.root_task_id == self.root_task_id)
        )


def entry_order(entry: ActionHistoryEntry) -> tuple[datetime, str, str]:
    """An entry's place in the history, oldest first (its cursor's fields)."""
    return entry.time, entry.task_id, entry.entry_id


def entry_cursor(entry: ActionHistoryEntry) -> TimeKeyCursor:
    """The cursor after `entry` in the history."""
    return TimeKeyCursor(entry.time, entry.task_id, entry.entry_id)
