"""Audit: the records of tool calls, RPCs and guardrail decisions a caller may read."""

from __future__ import annotations

from typing import ClassVar

from agentd.v1 import agent_service_pb2 as pb
from audit.service import AuditLogs
from core.identity import CallContext
from server.calls import unary
from server.convert import audit as convert_audit


class AuditRpcs:
    RPCS: ClassVar[tuple[str, ...]] = ("ListAuditRecords",)

    def __init__(self, audit: AuditLogs) -> None:
        self._audit = audit

    @unary
    async def ListAuditRecords(  # noqa: N802 - gRPC method name
        self, request: pb.ListAuditRecordsRequest, call: CallContext
    ) -> pb.ListAuditRecordsResponse:
        query = convert_audit.audit_query(request, call.principal.tenant)
        page = await self._audit.page(call.principal, query)
        return convert_audit.audit_page(page)
