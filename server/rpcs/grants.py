"""Grants: who may call which tools, created, revoked and listed by their admins."""

from __future__ import annotations

from typing import ClassVar

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import grants_pb2
from core.identity import CallContext
from server.calls import unary
from server.convert import grants as convert_grants
from server.rpcs.common import required_id
from tools.grant_admin import GrantAdmin


class GrantRpcs:
    RPCS: ClassVar[tuple[str, ...]] = ("CreateGrant", "RevokeGrant", "ListGrants")

    def __init__(self, grants: GrantAdmin) -> None:
        self._grants = grants

    @unary
    async def CreateGrant(  # noqa: N802 - gRPC method name
        self, request: pb.CreateGrantRequest, call: CallContext
    ) -> grants_pb2.Grant:
        draft = convert_grants.grant_from_proto(request.grant)
        created = await self._grants.create(call.principal, draft)
        answer = convert_grants.grant_to_proto(created.grant)
        answer.warnings.extend(warning.text for warning in created.warnings)
        return answer

    @unary
    async def RevokeGrant(  # noqa: N802
        self, request: pb.RevokeGrantRequest, call: CallContext
    ) -> grants_pb2.Grant:
        grant_id = required_id(request.grant_id, "grant_id")
        return convert_grants.grant_to_proto(await self._grants.revoke(call.principal, grant_id))

    @unary
    async def ListGrants(  # noqa: N802
        self, request: pb.ListGrantsRequest, call: CallContext
    ) -> pb.ListGrantsResponse:
        grants = await self._grants.list(call.principal, request.include_revoked)
        return pb.ListGrantsResponse(grants=[convert_grants.grant_to_proto(g) for g in grants])
