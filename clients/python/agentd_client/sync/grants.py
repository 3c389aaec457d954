"""The grant methods of the synchronous `AgentClient` (a mixin, as in the async client)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import grants_pb2, inbox_pb2, tools_pb2
from agentd_client import requests as build


class SyncGrantMethods:
    _stub: pb_grpc.AgentServiceStub

    def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    def create_grant(
        self,
        subject: str,
        tool: str,
        level: tools_pb2.PermissionLevel.ValueType,
        *,
        expires_at: datetime | None = None,
        window: str = "",
        arguments: Mapping[str, Sequence[str]] | None = None,
        requires_approval: bool = False,
        approval: inbox_pb2.ApprovalRule | None = None,
        timeout: float | None = None,
    ) -> grants_pb2.Grant:
        """Grant `subject` `level` on `tool` in your tenant (admin role); as the async
        client's `create_grant`."""
        request = build.grant_request(
            subject, tool, level, expires_at, window, arguments, requires_approval, approval
        )
        created: grants_pb2.Grant = self._unary(self._stub.CreateGrant, request, timeout)
        return created

    def revoke_grant(self, grant_id: str, *, timeout: float | None = None) -> grants_pb2.Grant:
        request = pb.RevokeGrantRequest(grant_id=grant_id)
        revoked: grants_pb2.Grant = self._unary(self._stub.RevokeGrant, request, timeout)
        return revoked

    def list_grants(
        self, *, include_revoked: bool = False, timeout: float | None = None
    ) -> list[grants_pb2.Grant]:
        request = pb.ListGrantsRequest(include_revoked=include_revoked)
        response: pb.ListGrantsResponse = self._unary(self._stub.ListGrants, request, timeout)
        return list(response.grants)
