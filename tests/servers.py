"""The one way tests run an agentd server in their own process.

`running_server(settings)` starts `server.app.AgentdServer` on a free loopback port,
yields a `Running`: the server, a channel and stub to it, and clients made for it; on
leaving it closes them and shuts the server down. `settings_in(folder)` makes settings of
such a server. When a test needs agentd as a process of its own (how it starts or exits,
kill -9, clients in other languages), it uses `tests.helpers.server_process` instead.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import grpc

from agent.definitions.promotion import PassedEvalRuns
from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd_client.client import AgentClient
from server.app import AgentdServer
from server.settings import Settings
from stores.tasks.base import TaskStore
from tools.registry import ToolRegistry

QUIET: dict[str, Any] = {
    "auth": "off",  # tests of auth itself turn it on
    "tool_permission": "write",  # tests of grants set "deny"
    "rate_limits": "",  # tests of rate limits set them
    "tenant_rate_limits": "",
    "metrics_address": "",  # tests of metrics choose a port
}
"""Settings that keep auth, grants, rate limits and metrics out of a test's way."""


def settings_in(folder: Path, **values: Any) -> Settings:
    """Settings of a server on any free loopback port, with its workspace and SQLite
    database in `folder`; `values` add to or replace these (nothing else is assumed)."""
    return Settings(
        **{
            "address": "127.0.0.1:0",
            "workspace_dir": folder / "workspace",
            "database_url": f"sqlite+aiosqlite:///{folder / 'agentd.db'}",
            **values,
        }
    )


@dataclass
class Running:
    """A server started by `running_server`, and what tests reach it with."""

    server: AgentdServer
    channel: grpc.aio.Channel
    """A plain channel to the server: no credentials, no options."""
    clients: list[AgentClient] = field(default_factory=list)
    """Clients closed when the server stops (those of `client`, and any a test adds)."""

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.server.port}"

    @property
    def stub(self) -> pb_grpc.AgentServiceAsyncStub:
        return pb_grpc.AgentServiceStub(self.channel)

    def client(self, **options: Any) -> AgentClient:
        """A new client of this server (AgentClient's options), closed at the end."""
        client = AgentClient(self.address, **options)
        self.clients.append(client)
        return client


@asynccontextmanager
async def running_server(
    settings: Settings,
    *,
    registry: ToolRegistry | None = None,
    tasks: TaskStore | None = None,
    passed_runs: PassedEvalRuns | None = None,
) -> AsyncIterator[Running]:
    """Start agentd in this process; close its clients and shut it down (no grace) after."""
    server = await AgentdServer.start(
        settings, registry=registry, tasks=tasks, passed_runs=passed_runs
    )
    running = Running(server, grpc.aio.insecure_channel(f"127.0.0.1:{server.port}"))
    try:
        yield running
    finally:
        for client in running.clients:
            await client.close()
        await running.channel.close(None)
        await server.shutdown(grace=0)
