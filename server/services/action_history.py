"""The inbox's history as a caller reads it (ListActionHistory): what became of the waits for
a person of the caller's tenant, oldest first, a page at a time.

Who reads what:
- a task's owner, the history of its own task (`task_id`) or of a task tree it started
  (`root_task_id`);
- a holder of a role that reads the inbox's history (the approvers and the auditors, by
  the role table), any task's, or the whole tenant's (no task named);
- nobody, another tenant's: a task of another tenant is NOT_FOUND, as an unknown one is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from core.identity import Principal
from core.roles import DEFAULT_ROLES, Action, RoleTable
from records.inbox.history import ActionHistoryEntry, HistoryQuery
from records.paging import Page, TimeKeyCursor
from records.tasks import Task
from stores.action_history.base import ActionHistoryStore


class ActionHistory:
    """Pages of the inbox's history for a caller; holds no state of its own.

    `find_task(tenant, task_id)` raises TaskNotFoundError for a task the tenant cannot see
    (live or in the task history alike).
    """

    def __init__(
        self,
        store: ActionHistoryStore,
        find_task: Callable[[str, str], Awaitable[Task]],
        roles: RoleTable = DEFAULT_ROLES,
    ) -> None:
        self._store = store
        self._find_task = find_task
        self._roles = roles

    async def page(
        self, caller: Principal, query: HistoryQuery
    ) -> Page[ActionHistoryEntry, TimeKeyCursor]:
        """A page of the history `query` asks for, in the caller's tenant (whatever the
        query says). NOT_FOUND for a task named that the tenant has not; PERMISSION_DENIED
        for one another principal started, or for no task named, without a role that reads
        the inbox's history."""
        query = replace(query, tenant=caller.tenant)
        named = [task_id for task_id in (query.task_id, query.root_task_id) if task_id]
        tasks = [await self._find_task(caller.tenant, task_id) for task_id in named]
        if not self._roles.allows(caller.roles, Action.READ_ACTION_HISTORY):
            if not named:
                self._roles.require(caller.roles, Action.READ_ACTION_HISTORY, "of every task")
            if any(task.owner != caller.id for task in tasks):
                subject = "of another principal's task"
                self._roles.require(caller.roles, Action.READ_ACTION_HISTORY, subject)
        return await self._store.list(query)
