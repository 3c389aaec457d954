"""The audit method of `AgentClient`: your tenant's audit records (a mixin: the client
supplies the channel and the error mapping)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd_client import requests as build
from agentd_client.requests import AuditKind


class AuditMethods:
    _stub: pb_grpc.AgentServiceStub

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    async def list_audit_records(
        self,
        kind: AuditKind,
        *,
        principal_id: str = "",
        tool_name: str = "",
        outcome: str = "",
        task_id: str = "",
        since: datetime | None = None,
        until: datetime | None = None,
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
        check: str = "",
    ) -> pb.ListAuditRecordsResponse:
        """One page of your tenant's audit records, oldest first (auditor or admin role);
        `check` keeps the decisions of one guardrail check (kind "guardrail")."""
        request = build.audit_request(
            kind,
            principal_id,
            tool_name,
            outcome,
            task_id,
            since,
            until,
            page_size,
            page_token,
            check=check,
        )
        response: pb.ListAuditRecordsResponse = await self._unary(
            self._stub.ListAuditRecords, request, timeout
        )
        return response
