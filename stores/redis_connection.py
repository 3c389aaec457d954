"""How agentd's Redis connections differ from redis-py's defaults, where those would cost a
connection or a cancellation. Mixed into whichever connection class the URL asks for (TCP,
TLS, Unix socket) by `connection_class`; `Client` is the client over such connections.

- **Writes under `asyncio.timeout`**, where redis-py uses `asyncio.wait_for`: that runs
  every write in a task of its own (a turn of the event loop per command) and, on Python
  3.11, loses a cancellation that arrives as the write finishes, so a cancelled task went
  on as if it had not been. The bound is the same (`socket_timeout`, then a Redis
  TimeoutError, retried like any other).
- **A cancelled command keeps its connection.** redis-py drops the connection of a caller
  cancelled while it waits for its reply: the reply is still on its way, and the next
  caller would read it. Cancellations are routine here (a stream whose caller went away, a
  cancelled task, a timeout around a call), and under load each one cost a new TCP
  connection and its handshake, while the old socket was still being closed, so a process
  briefly held more connections than its pool's bound. Now the cancelled caller reads
  that one reply to its end (the parser resumes where the cancellation stopped it), at most
  `cancelled_reply_seconds` (a setting), and then gives the connection back in step;
  only if the reply does not come in that time is the connection dropped (and always for
  a command that may wait on the server, such as BLPOP: see `BLOCKING`). This is done for
  lone commands (and scripts) only: a pipeline cancelled between its replies still drops
  its connection, as the replies it did not read are not counted here.
"""

from __future__ import annotations

import asyncio
from typing import Any

import redis.asyncio as redis
from redis.asyncio.connection import AbstractConnection, Connection
from redis.exceptions import RedisError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

BLOCKING = frozenset(
    {"BLPOP", "BRPOP", "BRPOPLPUSH", "BLMOVE", "BLMPOP", "BZPOPMIN", "BZPOPMAX", "BZMPOP"}
    | {"XREAD", "XREADGROUP", "WAIT", "WAITAOF"}
)
"""Commands that may wait on the server: a caller cancelled in one drops the connection, as
redis-py does, so that the server gives up the wait (a pop finished for a caller who has
gone would lose what it popped)."""


class _Connection(AbstractConnection):
    lone_reply = False
    """True while `Client` reads the reply of a lone command on this connection."""
    cancelled_reply_seconds = 1.0
    """The longest a cancelled caller waits for its command's reply before dropping the
    connection instead (set by `connection_class` from the options)."""

    async def send_packed_command(self, command: Any, check_health: bool = True) -> None:
        limit = self.socket_timeout
        if not limit:
            await super().send_packed_command(command, check_health)
            return
        self.socket_timeout = None  # the connection is this caller's while it sends
        try:
            async with asyncio.timeout(limit):
                await super().send_packed_command(command, check_health)
        except TimeoutError:
            raise RedisTimeoutError("Timeout writing to socket") from None
        finally:
            self.socket_timeout = limit

    async def read_response(
        self,
        disable_decoding: bool = False,
        timeout: float | None = None,  # noqa: ASYNC109 (redis-py's signature, overridden)
        *,
        disconnect_on_error: bool = True,
        push_request: bool | None = False,
    ) -> Any:
        if not self.lone_reply:
            return await super().read_response(
                disable_decoding,
                timeout,
                disconnect_on_error=disconnect_on_error,
                push_request=push_request,
            )
        try:
            return await super().read_response(
                disable_decoding, timeout, disconnect_on_error=False, push_request=push_request
            )
        except ResponseError:
            raise  # an error reply is a whole reply: the connection is in step
        except asyncio.CancelledError:
            await self._finish_reply(disable_decoding, push_request)
            raise
        except BaseException:
            if disconnect_on_error:
                await self.disconnect(nowait=True)
            raise

    async def _finish_reply(self, disable_decoding: bool, push_request: bool | None) -> None:
        """Read the reply a cancelled caller was waiting for, so that the connection can go
        back to the pool in step; drop the connection if that fails or takes too long."""
        try:
            limit = self.cancelled_reply_seconds
            async with asyncio.timeout(min(self.socket_timeout or limit, limit)):
                await super().read_response(
                    disable_decoding, None, disconnect_on_error=False, push_request=push_request
                )
        except ResponseError:
            pass
        except (RedisError, OSError, asyncio.CancelledError):
            # too slow (TimeoutError is an OSError), a lost connection, a second cancellation
            await self.disconnect(nowait=True)


def connection_class(
    base: type[AbstractConnection], cancelled_reply_seconds: float
) -> type[AbstractConnection]:
    """`base` (the class the URL asks for) with agentd's behaviour mixed in."""
    behaviour = {"cancelled_reply_seconds": cancelled_reply_seconds}
    return type(f"Agentd{base.__name__}", (_Connection, base), behaviour)


class Client(redis.Redis):
    """redis-py's client, marking the reply of each lone command so that a caller cancelled
    while waiting for it keeps its connection (pipelines and pub/sub are unchanged)."""

    async def parse_response(
        self, connection: Connection, command_name: str | bytes, **options: Any
    ) -> Any:
        name = command_name.decode() if isinstance(command_name, bytes) else command_name
        if not isinstance(connection, _Connection) or name.upper() in BLOCKING:
            return await super().parse_response(connection, command_name, **options)
        connection.lone_reply = True
        try:
            return await super().parse_response(connection, command_name, **options)
        finally:
            connection.lone_reply = False
