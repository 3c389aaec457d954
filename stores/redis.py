"""The Redis connections of one process: bounded, and the same whatever the load.

- `calls`: one pool for everything on a call's path (task state, event logs,
  idempotency keys, rate limits). It is bounded: when every
  connection is busy a caller waits (up to `pool_timeout_seconds`) instead of
  failing, and a connection or timeout error is retried with backoff. What
  still fails is reported as `StoreUnavailableError` (UNAVAILABLE with a
  retry delay), never INTERNAL.
- `background`: a small pool of its own for the loops that keep the process
  healthy (lease renewal, the takeover scan), so that load can never starve them.
- `subscriptions`: one pub/sub connection that every listener shares (the
  cancellation bus, and the followers of event logs, which are woken when a
  log grows instead of each blocking a connection of its own).

So a process holds at most `max_connections + 2 + 1` connections, however
many tasks it runs and streams it serves.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable

import redis.asyncio as redis
import structlog
from redis.asyncio.retry import Retry
from redis.backoff import ExponentialWithJitterBackoff
from redis.exceptions import AuthenticationError, RedisError
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from core.errors import StoreUnreachableError
from stores.redis_connection import Client, connection_class
from stores.redis_options import RedisOptions as RedisOptions
from stores.redis_options import shown as shown

log = structlog.get_logger(__name__)

Listener = Callable[[bytes | None], None]
"""Called with each message's data, and with None after a reconnection (when
messages may have been missed, so listeners re-check what they wait for)."""

BACKGROUND_CONNECTIONS = 2


def _client(options: RedisOptions, max_connections: int, role: str) -> redis.Redis:
    retry = Retry(ExponentialWithJitterBackoff(base=0.05, cap=1.0), options.retries)
    pool = redis.BlockingConnectionPool.from_url(
        options.url,
        max_connections=max_connections,
        timeout=options.pool_timeout_seconds,
        socket_timeout=options.socket_timeout_seconds,
        socket_connect_timeout=options.socket_timeout_seconds,
        retry=retry,
        retry_on_error=[RedisConnectionError, RedisTimeoutError],
        client_name=f"{options.client_name}:{role}",
        health_check_interval=30,
    )
    pool.connection_class = connection_class(pool.connection_class, options.cancelled_reply_seconds)
    return Client(connection_pool=pool)


class RedisConnections:
    """The process's Redis clients; `close` releases every connection."""

    def __init__(self, options: RedisOptions) -> None:
        self.options = options
        self.calls = _client(options, options.max_connections, "calls")
        self.background = _client(options, BACKGROUND_CONNECTIONS, "background")
        self.subscriptions = RedisSubscriptions(_client(options, 1, "subscriptions"))

    @classmethod
    def from_url(cls, url: str, **options: object) -> RedisConnections:
        return cls(RedisOptions(url, **options))  # type: ignore[arg-type]

    async def check(self) -> str:
        """One PING on the call pool: "" when Redis answered, else why it could not be
        reached (calls answer UNAVAILABLE until it is). StoreUnreachableError when Redis
        answers but refuses agentd (a wrong password, a database number it does not have):
        no wait mends that."""
        try:
            await self.calls.ping()
        except AuthenticationError as refused:
            raise StoreUnreachableError("Redis", shown(self.options.url), str(refused)) from None
        except (RedisConnectionError, RedisTimeoutError, OSError) as error:
            return str(error) or type(error).__name__
        except RedisError as refused:
            raise StoreUnreachableError("Redis", shown(self.options.url), str(refused)) from None
        return ""

    async def close(self) -> None:
        await self.subscriptions.close()
        for client in (self.calls, self.background):
            await client.aclose(close_connection_pool=True)


class RedisSubscriptions:
    """Pub/sub channels shared by the whole process over one connection.

    `listen(channel, listener)` subscribes (the connection's reader runs in
    one task, started on first use); the returned function unsubscribes.
    Listeners are called in the reader's task and must not block. After the
    connection is lost and restored, every listener is called with None.
    """

    POLL_SECONDS = 0.05

    def __init__(self, client: redis.Redis) -> None:
        self._client = client
        self._listeners: dict[str, set[Listener]] = {}
        self._reader: asyncio.Task[None] | None = None
        self._closed = False

    def listen(self, channel: str, listener: Listener) -> Callable[[], None]:
        self._listeners.setdefault(channel, set()).add(listener)
        if self._reader is None and not self._closed:
            self._reader = asyncio.create_task(self._read(), name="agentd-redis-subscriptions")

        def stop() -> None:
            listeners = self._listeners.get(channel)
            if listeners is not None:
                listeners.discard(listener)
                if not listeners:
                    del self._listeners[channel]

        return stop

    async def close(self) -> None:
        self._closed = True
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
        await self._client.aclose(close_connection_pool=True)

    async def _read(self) -> None:
        delay = 0.1
        while not self._closed:
            pubsub = self._client.pubsub(ignore_subscribe_messages=True)
            try:
                await self._serve(pubsub)
            except (RedisConnectionError, RedisTimeoutError, OSError) as error:
                log.warning("Redis subscriptions lost; reconnecting", error=str(error))
                await asyncio.sleep(delay)
                delay = min(delay * 2, 5.0)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    async def _serve(self, pubsub: redis.client.PubSub) -> None:
        subscribed: set[str] = set()
        first = True
        while not self._closed:
            wanted = set(self._listeners)
            added, dropped = wanted - subscribed, subscribed - wanted
            if added:
                await pubsub.subscribe(*added)
                subscribed |= added
            if dropped:
                await pubsub.unsubscribe(*dropped)
                subscribed -= dropped
            if first or added:
                # Anything published before these subscriptions took effect was missed.
                for channel in wanted if first else added:
                    self._deliver(channel, None)
                first = False
            if not subscribed:
                await asyncio.sleep(self.POLL_SECONDS)
                continue
            message = await pubsub.get_message(timeout=self.POLL_SECONDS)
            if message is not None and message.get("type") == "message":
                channel = message["channel"]
                name = channel.decode() if isinstance(channel, bytes) else str(channel)
                data = message["data"]
                self._deliver(name, data if isinstance(data, bytes) else str(data).encode())

    def _deliver(self, channel: str, data: bytes | None) -> None:
        for listener in list(self._listeners.get(channel, ())):
            try:
                listener(data)
            except Exception:
                log.exception("a subscription listener failed", channel=channel)
