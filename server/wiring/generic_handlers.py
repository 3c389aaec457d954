"""The services' methods served through generic handlers alone, not as registered methods.

Generated registration code (`add_<Service>Servicer_to_server`) adds each service twice
to a grpc.aio server: as a generic handler (a dict from method name to handler) and as
"registered methods". grpc.aio then keeps one pending task per registered method for
new calls and, for every call that arrives, runs `asyncio.wait` over all of them (a
done-callback added to and removed from each, ~45 here): work on the event loop that
grows with the number of methods and that every call pays. The generic handler the
same code adds serves the very same handlers (found by name in its dict), so the
services are registered on `GenericOnly(server)`: the server, except that it leaves
registered methods to the generic handlers (one pending task for new calls, whatever
the number of methods).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import grpc


class GenericOnly(grpc.aio.Server):
    """`server` for registration code: registered methods are left to the generic
    handlers added with them; everything else is the server's own."""

    def __init__(self, server: grpc.aio.Server) -> None:
        self._server = server

    def add_registered_method_handlers(self, service_name: str, method_handlers: Any) -> None:
        """Nothing: the generic handler added with them serves the same methods."""

    def add_generic_rpc_handlers(
        self, generic_rpc_handlers: Iterable[grpc.GenericRpcHandler[Any, Any]]
    ) -> None:
        self._server.add_generic_rpc_handlers(generic_rpc_handlers)

    def add_insecure_port(self, address: str) -> int:
        return self._server.add_insecure_port(address)

    def add_secure_port(self, address: str, server_credentials: grpc.ServerCredentials) -> int:
        return self._server.add_secure_port(address, server_credentials)

    async def start(self) -> None:
        await self._server.start()

    async def stop(self, grace: float | None = None) -> None:
        await self._server.stop(grace)

    async def wait_for_termination(self, timeout: float | None = None) -> bool:  # noqa: ASYNC109
        return await self._server.wait_for_termination(timeout)
