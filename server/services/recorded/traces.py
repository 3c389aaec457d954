"""Tasks' durable traces as a caller reads them (GetTaskTrace): a page of a task's trace,
with what is kept of it (its head) and the children whose traces name it as parent.

Who reads what: a task's owner, its own task's trace; a holder of a role that reads the
audit log (auditors and admins, by the role table), any of its tenant's. A task with no
kept trace, or another tenant's, is NOT_FOUND (`TRACE_NOT_FOUND`) alike. The trace is
checked against the owner it keeps, so it is readable after the task's events and its
history row are gone.
"""

from __future__ import annotations

from dataclasses import dataclass

from core.errors import TraceNotFoundError
from core.identity import Principal
from core.roles import DEFAULT_ROLES, Action, RoleTable
from records.traces.model import TraceHead, TracePage
from stores.traces.base import TraceStore


@dataclass(frozen=True, slots=True)
class TraceView:
    """A page of a task's trace, and what is kept of the task's trace."""

    head: TraceHead
    page: TracePage
    children: tuple[str, ...]


class TraceService:
    """Pages of traces for a caller; holds no state of its own. `store` None: this server
    keeps no traces (every task is TRACE_NOT_FOUND)."""

    def __init__(self, store: TraceStore | None, roles: RoleTable = DEFAULT_ROLES) -> None:
        self._store = store
        self._roles = roles

    async def read(self, caller: Principal, task_id: str, after: str, limit: int) -> TraceView:
        """A page of `task_id`'s trace: at most `limit` entries after the entry `after`
        ("" from the first). TraceNotFoundError, RoleRequiredError."""
        store = self._store
        head = await store.head(task_id) if store is not None else None
        if store is None or head is None or head.owner.tenant != caller.tenant:
            raise TraceNotFoundError(task_id)
        if head.owner.user != caller.id:
            self._roles.require(caller.roles, Action.READ_AUDIT_LOG, "of another principal's task")
        page = await store.page(task_id, after, limit)
        children = await store.children(task_id)
        return TraceView(head, page, tuple(children))

    async def forget_user(self, caller: Principal) -> int:
        """Delete every trace of the caller's tasks in its tenant (ForgetUser); how many
        tasks' traces went."""
        if self._store is None:
            return 0
        return await self._store.forget_user(caller.tenant, caller.id)
