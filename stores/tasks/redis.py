"""A task store on Redis: task state in a hash, the event log in a Redis Stream per task.

Keys (under one prefix, default `agentd:`):

    {prefix}task:{id}     hash: tenant, status, last_sequence, data (the task as JSON),
                          ended (set with the log's terminal event)
    {prefix}events:{id}   stream: entry id `{sequence}-0`, field `e` (the event as JSON)

Sequence numbers are assigned by a Lua script that increments
`last_sequence` and appends the entry in one atomic step, so any number of
replicas can write and read the same log. A terminal status can never be
overwritten: the update script refuses it. When a task ends, both keys get
the retention time (default one hour) as their expiry.

Appends from every task of the process are pipelined (`PipelinedAppends`);
each carries a token, so an append resent after a connection error is not
applied twice. Readers read a log with XRANGE in bounded batches, at their
own pace, and wait between batches without holding a connection: an append
publishes its token on `{prefix}grew:{id}`, and the process's one pub/sub
connection wakes the local readers of that log (a process hands its own
appends to its readers directly, and ignores their notifications).
"""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio as redis
from redis.exceptions import ResponseError

from core.errors import TaskAlreadyTerminalError, TaskNotFoundError
from records import serialization
from records.events import EventPayload, StatusChanged, TaskEvent
from records.tasks import Task, TaskStatus, utcnow
from stores.redis import RedisSubscriptions
from stores.tasks.redis_log import LogSignals, PipelinedAppends

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  -- the same create sent again (a retried command) succeeded the first time
  if redis.call('HGET', KEYS[1], 'created') == ARGV[4] then return 1 end
  return redis.error_reply('TAKEN')
end
redis.call('HSET', KEYS[1], 'tenant', ARGV[1], 'status', ARGV[2], 'data', ARGV[3],
           'last_sequence', 0, 'created', ARGV[4])
return 1
"""

_UPDATE = """
local found = redis.call('HMGET', KEYS[1], 'status', 'tenant')
local status = found[1]
if not status or (ARGV[4] ~= '' and found[2] ~= ARGV[4]) then
  return redis.error_reply('NOTASK')
end
if status == 'completed' or status == 'failed' or status == 'cancelled' then
  return redis.error_reply('TERMINAL ' .. status)
end
redis.call('HSET', KEYS[1], 'status', ARGV[1], 'data', ARGV[2])
if ARGV[1] == 'completed' or ARGV[1] == 'failed' or ARGV[1] == 'cancelled' then
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
return 1
"""

_APPEND = """
if redis.call('EXISTS', KEYS[1]) == 0 then return redis.error_reply('NOTASK') end
local seen = redis.call('HMGET', KEYS[1], 'append_token', 'last_sequence', 'ended')
if seen[1] == ARGV[4] then return tonumber(seen[2]) end
if seen[3] then return redis.error_reply('ENDED') end
local seq = redis.call('HINCRBY', KEYS[1], 'last_sequence', 1)
redis.call('XADD', KEYS[2], seq .. '-0', 'e', ARGV[1])
redis.call('HSET', KEYS[1], 'append_token', ARGV[4])
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'ended', 1)
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
redis.call('PUBLISH', ARGV[5], ARGV[4])
return seq
"""


class RedisTaskStore:
    """TaskStore on a shared Redis; safe for many processes at once."""

    def __init__(
        self,
        client: redis.Redis,
        *,
        prefix: str = "agentd:",
        retention_seconds: int = 3600,
        read_batch: int = 256,
        subscriptions: RedisSubscriptions | None = None,
        poll_seconds: float = 2.0,
    ) -> None:
        self._redis = client
        self._prefix = prefix
        self._retention = retention_seconds
        self._batch = read_batch
        self._poll = poll_seconds
        self._create = client.register_script(_CREATE)
        self._update = client.register_script(_UPDATE)
        self._appends = PipelinedAppends(client, _APPEND)
        self._signals = LogSignals(subscriptions, self._channel, self._appends.origin)

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisTaskStore:
        return cls(redis.Redis.from_url(url), **options)

    async def close(self) -> None:
        await self._redis.aclose()

    def _task_key(self, task_id: str) -> str:
        return f"{self._prefix}task:{task_id}"

    def _events_key(self, task_id: str) -> str:
        return f"{self._prefix}events:{task_id}"

    def _channel(self, task_id: str) -> str:
        return f"{self._prefix}grew:{task_id}"

    async def create(self, task: Task) -> None:
        try:
            await self._create(
                keys=[self._task_key(task.task_id)],
                args=[
                    task.tenant,
                    task.status.value,
                    serialization.dumps(task),
                    secrets.token_hex(8),  # recognises this create if it is sent again
                ],
            )
        except ResponseError as error:
            if "TAKEN" in str(error):
                raise ValueError(f"task id {task.task_id!r} is taken") from None
            raise

    async def _load(self, tenant: str, task_id: str) -> Task:
        fields = await self._redis.hmget(
            self._task_key(task_id), ["tenant", "data", "last_sequence"]
        )
        stored_tenant, data, last = fields
        if data is None or stored_tenant is None or _text(stored_tenant) != tenant:
            raise TaskNotFoundError(task_id)
        task: Task = serialization.loads(data)
        task.last_sequence = int(last or 0)
        return task

    async def get(self, tenant: str, task_id: str) -> Task:
        return await self._load(tenant, task_id)

    async def _write(self, task: Task, tenant: str = "") -> None:
        try:
            await self._update(
                keys=[self._task_key(task.task_id), self._events_key(task.task_id)],
                args=[task.status.value, serialization.dumps(task), self._retention, tenant],
            )
        except ResponseError as error:
            message = str(error)
            if "TERMINAL" in message:
                raise TaskAlreadyTerminalError(task.task_id, message.split()[-1]) from None
            if "NOTASK" in message:
                raise TaskNotFoundError(task.task_id) from None
            raise

    async def update(self, task: Task) -> None:
        task.updated_at = utcnow()  # the caller's copy too: its history row agrees
        await self._write(task.snapshot(), task.tenant)

    async def set_status(
        self, tenant: str, task_id: str, status: TaskStatus, *, detail: str = ""
    ) -> Task:
        task = await self._load(tenant, task_id)
        task.move_to(status, detail)
        await self._write(task)
        return task

    async def append_event(self, task_id: str, trace_id: str, payload: EventPayload) -> TaskEvent:
        stamp = utcnow()
        body = serialization.dumps({"timestamp": stamp, "trace_id": trace_id, "payload": payload})
        terminal = isinstance(payload, StatusChanged) and payload.current.terminal
        try:
            sequence = await self._appends.append(
                task_id,
                keys=[self._task_key(task_id), self._events_key(task_id)],
                args=[body, "1" if terminal else "0", self._retention],
                channel=self._channel(task_id),
            )
        except ResponseError as error:
            if "NOTASK" in str(error):
                raise TaskNotFoundError(task_id) from None
            if "ENDED" in str(error):
                raise TaskAlreadyTerminalError(task_id, "ended") from None
            raise
        event = TaskEvent(task_id, sequence, stamp, trace_id, payload)
        self._signals.grew(task_id, event)
        return event

    def _event(self, task_id: str, entry_id: bytes, fields: dict[bytes, bytes]) -> TaskEvent:
        body = serialization.loads(fields[b"e"])
        sequence = int(entry_id.split(b"-", 1)[0])
        return TaskEvent(task_id, sequence, body["timestamp"], body["trace_id"], body["payload"])

    async def read_events(
        self, tenant: str, task_id: str, after_sequence: int = 0
    ) -> AsyncIterator[TaskEvent]:
        task_key, events_key = self._task_key(task_id), self._events_key(task_id)
        stored_tenant, ended, last = await self._redis.hmget(
            task_key, ["tenant", "ended", "last_sequence"]
        )
        if stored_tenant is None or _text(stored_tenant) != tenant:
            raise TaskNotFoundError(task_id)
        if ended is not None and int(last or 0) <= after_sequence:
            return  # the log is complete and the caller has all of it
        position = after_sequence
        reading = True
        with self._signals.watch(task_id) as follower:
            while True:
                if reading:  # from the log itself, in bounded batches at the reader's pace
                    follower.grown.clear()
                    batch: Any = await self._redis.xrange(
                        events_key, min=f"({position}-0", max="+", count=self._batch
                    )
                    for entry_id, fields in batch:
                        event = self._event(task_id, entry_id, fields)
                        position = event.sequence
                        yield event
                        if event.terminal:
                            return
                    if len(batch) == self._batch:
                        continue  # more may be there already
                    if batch:  # the end of the log when read: what follows is handed or signalled
                        reading = False
                        continue
                    exists, ended = await self._redis.hmget(task_key, ["tenant", "ended"])
                    if exists is None:
                        return  # expired while we waited
                    if ended is not None:
                        continue  # the terminal event was appended after our read: read it
                    reading = False
                handed = follower.take(position)
                if handed is not None:  # appended here just now: no need to read it back
                    position = handed.sequence
                    yield handed
                    if handed.terminal:
                        return
                    continue
                if follower.gap:
                    follower.gap, reading = False, True
                    continue
                follower.grown.clear()
                if follower.handed:
                    continue
                try:
                    # Woken when the log grows (here, or on another replica through
                    # pub/sub); the timeout only covers a notification lost in a reconnect.
                    async with asyncio.timeout(self._poll):
                        await follower.grown.wait()
                except TimeoutError:
                    reading = True


def _text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else value
