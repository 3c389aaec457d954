"""Reading the audit log through the API: the caller's tenant only, auditors only."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import replace

from core.identity import Principal
from core.roles import DEFAULT_ROLES, Action, RoleTable
from records.audit import RpcRecord
from records.guardrails.events import GuardrailRecord
from records.paging import Page, PositionCursor
from records.tools.audit import ToolCallRecord
from stores.audit.base import AuditQuery
from stores.audit.sql import SqlAuditReader

AuditPage = (
    Page[RpcRecord, PositionCursor]
    | Page[ToolCallRecord, PositionCursor]
    | Page[GuardrailRecord, PositionCursor]
)


class AuditLogs:
    """Pages of audit records for a principal holding an auditor role.

    `check_task(tenant, task_id)` raises TaskNotFoundError for a task the
    tenant cannot see, so asking for another tenant's task is NOT_FOUND,
    exactly as an unknown id is.
    """

    def __init__(
        self,
        reader: SqlAuditReader,
        check_task: Callable[[str, str], Awaitable[object]],
        roles: RoleTable = DEFAULT_ROLES,
    ) -> None:
        self._reader = reader
        self._check_task = check_task
        self._roles = roles

    async def page(self, principal: Principal, query: AuditQuery) -> AuditPage:
        self._roles.require(principal.roles, Action.READ_AUDIT_LOG)
        query = replace(query, tenant=principal.tenant)
        if query.task_id:
            await self._check_task(principal.tenant, query.task_id)
        if query.kind == "rpc":
            return await self._reader.rpcs(query)
        if query.kind == "guardrail":
            return await self._reader.guardrails(query)
        return await self._reader.tool_calls(query)
