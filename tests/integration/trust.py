"""A server with authentication on and default deny, and helpers to give callers keys
and grants and to read what the audit log kept."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import select

from agent.llm.fakes.embeddings import DEFAULT_DIMENSIONS
from agent.llm.fakes.server import FakeOpenAIServer
from agentd_client.client import AgentClient
from records.audit import RpcRecord
from records.keys import new_key
from records.tools.audit import ToolCallRecord
from records.tools.grants import Grant, TimeWindow, new_grant_id
from records.tools.model import PermissionLevel
from server.app import AgentdServer
from stores.audit.base import AuditQuery
from stores.audit.sql import SqlAuditReader, rpc_from_row
from stores.sql.schema import rpc_audit
from tests.integration.harness import model_settings
from tests.servers import QUIET, Running, running_server, settings_in
from tools.permissions import GrantPolicy


@dataclass
class Trust:
    running: Running
    llm: FakeOpenAIServer

    @property
    def server(self) -> AgentdServer:
        return self.running.server

    @property
    def address(self) -> str:
        return self.running.address

    @property
    def clients(self) -> list[AgentClient]:
        """Clients closed when the server stops."""
        return self.running.clients

    async def client(self, tenant: str, principal: str, *roles: str, **options: Any) -> AgentClient:
        """A client holding a new API key of `principal` in `tenant`."""
        key, plaintext = new_key(tenant, principal, roles)
        await self.server.durable.api_keys.add(key)
        return self.running.client(api_key=plaintext, timeout=20, **options)

    async def grant(
        self,
        tenant: str,
        subject: str,
        tool: str,
        level: str = "admin",
        *,
        window: str | None = None,
        arguments: dict[str, tuple[str, ...]] | None = None,
        requires_approval: bool = False,
    ) -> Grant:
        grant = Grant(
            grant_id=new_grant_id(),
            tenant=tenant,
            subject=subject,
            tool=tool,
            level=PermissionLevel[level.upper()],
            created_at=datetime.now(UTC),
            created_by="test",
            window=TimeWindow.parse(window) if window else None,
            arguments=arguments or {},
            requires_approval=requires_approval,
        )
        await self.server.durable.grants.add(grant)
        await self.refresh()
        return grant

    async def refresh(self) -> None:
        policy = self.server.registry.policy
        assert isinstance(policy, GrantPolicy)
        await policy.refresh(self.server.durable.grants)

    async def tool_records(self, tenant: str) -> list[ToolCallRecord]:
        page = await SqlAuditReader(self.server.durable.database).tool_calls(
            AuditQuery(tenant, "tool_call", limit=10_000)
        )
        return list(page.items)

    async def rpc_records(self) -> list[RpcRecord]:
        """Every RPC record of every tenant (refused callers' included), oldest first."""
        async with self.server.durable.database.engine.connect() as connection:
            rows = (await connection.execute(select(rpc_audit).order_by("id"))).mappings()
            return [rpc_from_row(row) for row in rows]


@asynccontextmanager
async def trusted(
    tmp_path: Path, replies: Sequence[Any] = (), **settings: Any
) -> AsyncIterator[Trust]:
    """agentd with auth on, default deny, no rate limits unless asked, a scripted model."""
    dimensions = int(settings.get("embedding_dimensions", DEFAULT_DIMENSIONS))
    async with FakeOpenAIServer(list(replies), embedding_dimensions=dimensions) as llm:
        config = settings_in(
            tmp_path,
            **{
                **QUIET,
                **model_settings(llm),
                "grace_period_seconds": 1.0,
                "auth": "on",
                "auth_cache_seconds": 0,
                "tool_permission": "deny",
                "http_allowed_networks": ["127.0.0.1/32"],
                **settings,
            },
        )
        (tmp_path / "workspace").mkdir(parents=True, exist_ok=True)
        async with running_server(config) as running:
            yield Trust(running, llm)
