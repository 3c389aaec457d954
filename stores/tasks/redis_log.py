"""Event-log plumbing on Redis: appends pipelined across tasks, and waking local readers.

`PipelinedAppends` sends the appends of every task of the process together:
appends that arrive while a pipeline is in flight go out in the next one, so
one round trip carries as many events as the tasks produced meanwhile. Each
caller still waits for its own event's sequence number. A pipeline holds at
most one append per task, and each append carries a unique token the script
remembers: a pipeline resent after a connection error (the client retries)
cannot apply an event twice.

`LogSignals` wakes the readers of a log in this process when it grows: at
once for appends made here, and through the process's shared pub/sub
connection for appends made by other replicas.
"""

from __future__ import annotations

import asyncio
import secrets
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import redis.asyncio as redis
from redis.exceptions import NoScriptError, ResponseError

from records.events import TaskEvent
from stores.redis import RedisSubscriptions


@dataclass(slots=True)
class _Append:
    task_id: str
    keys: Sequence[str]
    args: Sequence[Any]
    done: asyncio.Future[int] = field(repr=False)


class PipelinedAppends:
    """Runs one append script for many tasks, pipelined."""

    def __init__(self, client: redis.Redis, script: str) -> None:
        self._redis = client
        self._script = client.register_script(script)
        self._pending: list[_Append] = []
        self._lock = asyncio.Lock()
        self._flushes: set[asyncio.Task[None]] = set()
        self.origin = secrets.token_hex(4)
        """Begins every token of this process's appends (what they publish)."""
        self._counter = 0

    def _token(self) -> str:
        self._counter += 1
        return f"{self.origin}-{self._counter:x}"

    async def append(
        self, task_id: str, *, keys: Sequence[str], args: Sequence[Any], channel: str
    ) -> int:
        """Run the script for one event; its result (the sequence number), or its error."""
        done: asyncio.Future[int] = asyncio.get_running_loop().create_future()
        self._pending.append(_Append(task_id, keys, [*args, self._token(), channel], done))
        async with self._lock:
            if not done.done():
                batch = self._take()
                if len(batch) == 1 and batch[0].done is done:  # its own alone: none to shield
                    await self._flush(batch)
                    return await done
                flush = asyncio.ensure_future(self._flush(batch))
                self._flushes.add(flush)
                flush.add_done_callback(self._flushes.discard)
                await asyncio.shield(flush)
        return await done

    def _take(self) -> list[_Append]:
        """The pending appends, at most one per task (the rest wait for the next pipeline)."""
        batch: list[_Append] = []
        later: list[_Append] = []
        seen: set[str] = set()
        for item in self._pending:
            if item.task_id in seen:
                later.append(item)
            else:
                seen.add(item.task_id)
                batch.append(item)
        self._pending = later
        return batch

    async def _flush(self, batch: list[_Append]) -> None:
        try:
            results = await self._send(batch)
        except BaseException as error:  # handed to every waiting caller
            cancelled = not isinstance(error, Exception)
            for item in batch:
                if item.done.done():
                    continue
                if cancelled:  # whether it was applied is not known: theirs too
                    item.done.cancel()
                else:
                    item.done.set_exception(error)
            if cancelled:
                raise
            return
        for item, result in zip(batch, results, strict=True):
            if item.done.done():
                continue
            if isinstance(result, Exception):
                item.done.set_exception(result)
            else:
                item.done.set_result(int(result))

    async def _send(self, batch: list[_Append]) -> list[Any]:
        if len(batch) == 1:  # alone: one command, without a pipeline's overhead
            item = batch[0]
            try:
                return [await self._script(keys=item.keys, args=item.args)]
            except ResponseError as error:
                return [error]
        for attempt in (1, 2):
            async with self._redis.pipeline(transaction=False) as pipe:
                for item in batch:
                    pipe.evalsha(self._script.sha, len(item.keys), *item.keys, *item.args)
                results: list[Any] = await pipe.execute(raise_on_error=False)
            if attempt == 1 and any(isinstance(r, NoScriptError) for r in results):
                await self._redis.script_load(self._script.script)
                # Appends that failed with NOSCRIPT did nothing; those that ran are
                # recognised by their token when sent again.
                continue
            return results
        raise AssertionError("unreachable")  # pragma: no cover


class Follower:
    """One local reader of a log: woken when it grows, and handed the events appended by
    this process, in order, so that a reader at the end of the log need not read them
    back from Redis. Handed events are only hints: the reader uses them when they follow
    on from what it has, and reads the log otherwise."""

    MAX_HANDED = 256

    def __init__(self) -> None:
        self.grown = asyncio.Event()
        self.handed: deque[TaskEvent] = deque()
        self.gap = False
        """Set when the log grew by events not handed over: the reader must read the log."""

    def hand(self, event: TaskEvent) -> None:
        if len(self.handed) >= self.MAX_HANDED:
            self.handed.clear()  # a slow reader reads the log at its own pace instead
            self.gap = True
        else:
            self.handed.append(event)
        self.grown.set()

    def elsewhere(self) -> None:
        """The log grew by an append of another process (or news may have been missed)."""
        self.gap = True
        self.grown.set()

    def take(self, position: int) -> TaskEvent | None:
        """The handed event that follows `position`, if it is there (stale ones dropped)."""
        while self.handed and self.handed[0].sequence <= position:
            self.handed.popleft()
        if not self.handed:
            return None
        if self.handed[0].sequence == position + 1:
            return self.handed.popleft()
        self.handed.clear()  # a gap (another replica appended in between)
        self.gap = True
        return None


class LogSignals:
    """Per-task wake-ups (and hand-offs) for the readers of event logs in this process."""

    def __init__(
        self,
        subscriptions: RedisSubscriptions | None,
        channel: Callable[[str], str],
        origin: str,
    ) -> None:
        self._subscriptions = subscriptions
        self._channel = channel
        self._own = f"{origin}-".encode()
        self._waiting: dict[str, set[Follower]] = {}
        self._stops: dict[str, Callable[[], None]] = {}

    def grew(self, task_id: str, event: TaskEvent) -> None:
        """This process appended `event`."""
        for follower in self._waiting.get(task_id, ()):
            follower.hand(event)

    def _published(self, task_id: str, token: bytes | None) -> None:
        """A notification on the task's channel (None: some may have been missed)."""
        if token is not None and token.startswith(self._own):
            return  # an append of this process: handed over directly
        for follower in self._waiting.get(task_id, ()):
            follower.elsewhere()

    @contextmanager
    def watch(self, task_id: str) -> Iterator[Follower]:
        """A follower of the task's log, registered while the block runs."""
        follower = Follower()
        waiting = self._waiting.setdefault(task_id, set())
        waiting.add(follower)
        if len(waiting) == 1 and self._subscriptions is not None:
            self._stops[task_id] = self._subscriptions.listen(
                self._channel(task_id), lambda data: self._published(task_id, data)
            )
        try:
            yield follower
        finally:
            waiting.discard(follower)
            if not waiting:
                del self._waiting[task_id]
                stop = self._stops.pop(task_id, None)
                if stop is not None:
                    stop()
