"""A2A on a server (`server.a2a`): the service added when it is on, and the remote A2A
agents the engine calls, loaded when first called.

The server calls `a2a_if_on`; the SDK (and starlette, uvicorn for the HTTP address) is
imported only when A2A is on (AGENTD_A2A=true), by `server.wiring.fronts.a2a_serving`
(its door on the HTTP address, `server.a2a.http`, with it); a server whose agents call
no remote agent never loads `server.a2a.remote`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    import grpc
    from grpc_health.v1._async import HealthServicer

    from agent.definitions.catalog import Agents
    from agent.engine import Engine
    from agent.running.answers import Outcome
    from agent.running.run import TaskRun
    from agent.teams.remote import RemoteAgents
    from records.agents.remote_keys import RemoteDelegate
    from records.tasks import Task
    from records.waits import Wait
    from server.http.door import Door
    from server.services.tasks import TaskService
    from server.settings import Settings
    from stores.build import DurableStores
    from stores.tasks.base import TaskStore
    from tools.builtin.addresses import IPNetwork
    from tools.registry import ToolRegistry


class A2A(Protocol):
    """A2A on a server (`server.wiring.fronts.a2a_serving.A2AServing`), as its lifecycle
    sees it."""

    service_name: str

    def door(self) -> Door:
        """Its door on the HTTP address (`server.a2a.http`)."""
        ...

    async def start(self, grpc_port: int, health: HealthServicer, served: str = "") -> None:
        """Serving: the cards name the gRPC port and `served`, the HTTP address's URL when
        it serves A2A's door."""
        ...

    async def stop(self) -> None: ...


def a2a_if_on(
    server: grpc.aio.Server,
    settings: Settings,
    engine: Engine,
    service: TaskService,
    tasks: TaskStore,
    registry: ToolRegistry,
    agents: Agents,
    durable: DurableStores,
) -> A2A | None:
    """lf.a2a.v1.A2AService on `server` when A2A is on; the A2A SDK is imported only then."""
    if not settings.a2a:
        return None
    from server.wiring.fronts.a2a_serving import A2AServing  # the SDK, only when A2A is on

    return A2AServing.add(
        server,
        settings,
        engine,
        service,
        tasks,
        registry,
        agents,
        durable,
    )


class LazyRemoteAgents:
    """`server.a2a.remote.A2ARemoteAgents`, its module (and the SDK) imported when a remote
    A2A agent is first called: a server whose agents call none never loads it."""

    def __init__(self, allowed: Sequence[IPNetwork], follow_seconds: float = 10.0) -> None:
        self._allowed = tuple(allowed)
        self._follow_seconds = follow_seconds
        self._remote: RemoteAgents | None = None

    def _loaded(self) -> RemoteAgents:
        if self._remote is None:
            from server.a2a.remote import A2ARemoteAgents

            self._remote = A2ARemoteAgents(self._allowed, follow_seconds=self._follow_seconds)
        return self._remote

    async def run(self, run: TaskRun, remote: RemoteDelegate) -> Outcome:
        return await self._loaded().run(run, remote)

    async def check(self, task: Task, wait: Wait) -> bool:
        return await self._loaded().check(task, wait)
