"""The HTTP address (AGENTD_HTTP_ADDRESS): one uvicorn server on a socket agentd binds,
serving the routes of the doors that are on behind the guard (`server.http.guard`),
started and stopped with the gRPC server. uvicorn installs no signal handlers here:
agentd's own `serve()` owns SIGTERM and SIGINT."""

from __future__ import annotations

import asyncio
import contextlib
import math
import socket
from collections.abc import Iterator, Sequence

import uvicorn
from starlette.applications import Starlette
from starlette.middleware import Middleware

from server.http.checks import GuardChecks
from server.http.door import Door
from server.http.guard import Guard
from server.listening import StartupError, listening_socket, reason

SETTING = "AGENTD_HTTP_ADDRESS, formerly AGENTD_A2A_HTTP_ADDRESS"


class _QuietServer(uvicorn.Server):
    """uvicorn without its signal handlers: agentd's own serve() owns SIGTERM/SIGINT."""

    @contextlib.contextmanager
    def capture_signals(self) -> Iterator[None]:
        yield

    def install_signal_handlers(self) -> None:
        return


def http_app(doors: Sequence[Door], checks: GuardChecks) -> Starlette:
    """The doors' routes behind the guard."""
    routes = [route for door in doors for route in door.routes()]
    return Starlette(routes=routes, middleware=[Middleware(Guard, doors=doors, checks=checks)])


class HttpAddress:
    """The address, listening from `start` to `stop`; each door's `running()` is entered
    before it listens and left once it has stopped."""

    def __init__(
        self,
        address: str,
        doors: Sequence[Door],
        checks: GuardChecks,
        grace_seconds: float | None = None,
    ) -> None:
        self.address = address
        self.doors = tuple(doors)
        self._checks = checks
        self._grace = grace_seconds
        self._server: _QuietServer | None = None
        self._task: asyncio.Task[None] | None = None
        self._running = contextlib.AsyncExitStack()

    async def start(self) -> int:
        """Listen; the port bound. StartupError when the address cannot be bound (bound
        here, not by uvicorn, which logs the failure and exits the process)."""
        try:
            bound = listening_socket(self.address)
        except (OSError, ValueError) as error:
            raise StartupError(
                f"cannot serve HTTP on {self.address} ({SETTING}): {reason(error)}; choose "
                "another address (port 0: any free port), or empty to serve gRPC alone"
            ) from None
        try:
            for door in self.doors:
                await self._running.enter_async_context(door.running())
            await self._serve(bound)
        except BaseException:
            bound.close()
            await self.stop()
            raise
        port: int = bound.getsockname()[1]
        return port

    async def _serve(self, bound: socket.socket) -> None:
        config = uvicorn.Config(
            http_app(self.doors, self._checks),
            log_level="warning",
            lifespan="off",
            access_log=False,
            timeout_graceful_shutdown=None if self._grace is None else math.ceil(self._grace),
        )
        self._server = _QuietServer(config)
        self._task = asyncio.create_task(
            self._server.serve(sockets=[bound]),
            name="agentd-http",
        )
        for _ in range(500):  # at most 5 s
            if self._server.started or self._task.done():
                break
            await asyncio.sleep(0.01)
        if not self._server.started:
            raise StartupError(f"cannot serve HTTP on {self.address} ({SETTING})")

    async def stop(self) -> None:
        """Stop listening, let the calls in flight finish (within the grace given), then
        leave the doors' `running()`."""
        if self._server is not None:
            self._server.should_exit = True
        if self._task is not None:
            with contextlib.suppress(Exception, SystemExit):
                await self._task
        await self._running.aclose()
