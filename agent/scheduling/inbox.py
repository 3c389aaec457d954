"""The inbox: every wait for a person a caller may answer, across tasks and task trees, a
page at a time, oldest first (ListPendingActions). It reads the wait records
(`stores.waits`); answering one is ApproveToolCall, ProvideInput or ResumeTask
(`agent.scheduling.answers`), on any replica.

Who may answer what is what the answers check, so nothing a caller could not answer is
listed to it, and nothing of another tenant:

- an approval of a tool call, or of going past a budget's soft limit (ApproveToolCall): a
  holder of a role that approves tool calls (the role table) that is also one of the
  roles the wait was opened for; when those are an approval rule's (the rule's, or the
  roles it escalated to), a holder of one of them, whatever the role table says;
- a question of the task's agent (ProvideInput): the task's owner, or a holder of a role
  that answers another principal's task;
- a resume after a tool call failed resumably (ResumeTask): the task's owner, or a holder
  of a role that resumes another principal's task.

What became of each wait (opened, reminded, escalated, answered, timed out) is the inbox's
history (`InboxHistory`, one of those told of waits' steps: `agent.notices`), kept after
the wait is gone and read with ListActionHistory.
"""

from __future__ import annotations

from dataclasses import replace

from core.identity import Principal
from core.roles import Action, RoleTable
from records.inbox.history import entry_of
from records.inbox.steps import ActionStep
from records.paging import Page, TimeKeyCursor
from records.tasks import Task, TaskStatus
from records.waits import PERSON_KINDS, Audience, PendingQuery, Wait, WaitKind
from stores.action_history.base import ActionHistoryStore
from stores.waits.base import WaitStore

APPROVALS = frozenset({WaitKind.APPROVAL, WaitKind.BUDGET})
"""Decided with ApproveToolCall, by an approver the wait names."""
OWNED = frozenset({WaitKind.QUESTION, WaitKind.RESUME})
"""Answered by the task's owner, or by a role that may answer or resume another's task."""
_OTHERS = {
    WaitKind.QUESTION: Action.ANSWER_ANOTHERS_TASK,
    WaitKind.RESUME: Action.RESUME_ANOTHERS_TASK,
}


class Inbox:
    """Lists the waits for a person a caller may answer; holds no state of its own."""

    def __init__(self, waits: WaitStore, roles: RoleTable) -> None:
        self._waits = waits
        self._roles = roles

    def audience(self, caller: Principal) -> Audience:
        """The waits `caller` may answer, kind by kind (as the answers decide)."""
        held = caller.roles
        approves = self._roles.allows(held, Action.APPROVE_TOOL_CALLS)
        anyone = frozenset(k for k, action in _OTHERS.items() if self._roles.allows(held, action))
        return Audience(
            anyone=anyone,
            by_role=APPROVALS if approves else frozenset(),
            roles=held,
            owned=OWNED,
            owner=caller.id,
            by_rule=APPROVALS,
        )

    async def pending(
        self, caller: Principal, query: PendingQuery, kinds: frozenset[WaitKind] = PERSON_KINDS
    ) -> Page[Wait, TimeKeyCursor]:
        """A page of the open waits of `kinds` in the caller's tenant that it may answer,
        filtered and paged as `query` asks (its tenant and audience are the caller's, whatever
        it says), oldest first."""
        audience = self.audience(caller).narrowed(kinds & PERSON_KINDS)
        return await self._waits.pending(replace(query, tenant=caller.tenant, audience=audience))


class InboxHistory:
    """Told of each step of a wait for a person (a `Notices`), keeps it in the inbox's
    history: awaited before the step goes on, so a step is never lost, and one taken again
    after a process died is the same entry (`records.inbox.history`), kept once. Status
    changes are not its business."""

    def __init__(self, store: ActionHistoryStore) -> None:
        self._store = store

    async def task_status(
        self, task: Task, status: TaskStatus, previous: TaskStatus | None
    ) -> None:
        return None

    async def action(self, step: ActionStep) -> None:
        await self._store.record([entry_of(step)])
