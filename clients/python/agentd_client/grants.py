"""The grant methods of `AgentClient`: who may call which tool in your tenant (a mixin:
the client supplies the channel and the error mapping)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import grants_pb2, inbox_pb2, tools_pb2
from agentd_client import requests as build


class GrantMethods:
    _stub: pb_grpc.AgentServiceStub

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    async def create_grant(
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
        """Grant `subject` ("principal:<id>" or "role:<name>") `level` on `tool` (a name,
        "<toolset>.*", "category:<name>" or "*") in your tenant (admin role). The grant
        made; its `warnings` say when it is shadowed or has no effect. With
        `requires_approval`, `approval` says who decides on its calls, by when, and what the
        deadline does (unset: the server's rule)."""
        request = build.grant_request(
            subject, tool, level, expires_at, window, arguments, requires_approval, approval
        )
        created: grants_pb2.Grant = await self._unary(self._stub.CreateGrant, request, timeout)
        return created

    async def revoke_grant(
        self, grant_id: str, *, timeout: float | None = None
    ) -> grants_pb2.Grant:
        revoked: grants_pb2.Grant = await self._unary(
            self._stub.RevokeGrant, pb.RevokeGrantRequest(grant_id=grant_id), timeout
        )
        return revoked

    async def list_grants(
        self, *, include_revoked: bool = False, timeout: float | None = None
    ) -> list[grants_pb2.Grant]:
        response: pb.ListGrantsResponse = await self._unary(
            self._stub.ListGrants, pb.ListGrantsRequest(include_revoked=include_revoked), timeout
        )
        return list(response.grants)
