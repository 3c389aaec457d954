"""A task store on Redis: task state in a hash, the event log in a Redis Stream per task.

Keys (under one prefix, default `agentd:`):

    {prefix}task:{id}     hash: tenant, status, last_sequence, data (the task as JSON),
                          ended (set with the log's terminal event)
    {prefix}events:{id}   stream: entry id `{sequence}-0`, field `e` (the event as JSON)

Sequence numbers are assigned by a Lua script that increments
`last_sequence` and appends the entry in one atomic step, so any number of
replicas can write and read the same log. A terminal status can never be
overwritten: the update script refuses it. When a task ends, both keys get
the retention time (default one hour) as their expiry. Readers follow a log
with blocking XREAD in bounded batches, at their own pace.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import redis.asyncio as redis
from redis.exceptions import ResponseError

from agent import serialization
from agent.events import EventPayload, StatusChanged, TaskEvent
from agent.tasks import Task, TaskStatus, utcnow
from core.errors import TaskAlreadyTerminalError, TaskNotFoundError

_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return redis.error_reply('TAKEN') end
redis.call('HSET', KEYS[1], 'tenant', ARGV[1], 'status', ARGV[2], 'data', ARGV[3],
           'last_sequence', 0)
return 1
"""

_UPDATE = """
local status = redis.call('HGET', KEYS[1], 'status')
if not status then return redis.error_reply('NOTASK') end
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
if redis.call('HEXISTS', KEYS[1], 'ended') == 1 then return redis.error_reply('ENDED') end
local seq = redis.call('HINCRBY', KEYS[1], 'last_sequence', 1)
redis.call('XADD', KEYS[2], seq .. '-0', 'e', ARGV[1])
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'ended', 1)
  redis.call('EXPIRE', KEYS[1], ARGV[3])
  redis.call('EXPIRE', KEYS[2], ARGV[3])
end
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
        block_ms: int = 1000,
    ) -> None:
        self._redis = client
        self._prefix = prefix
        self._retention = retention_seconds
        self._batch = read_batch
        self._block_ms = block_ms
        self._create = client.register_script(_CREATE)
        self._update = client.register_script(_UPDATE)
        self._append = client.register_script(_APPEND)

    @classmethod
    def from_url(cls, url: str, **options: Any) -> RedisTaskStore:
        return cls(redis.Redis.from_url(url), **options)

    async def close(self) -> None:
        await self._redis.aclose()

    def _task_key(self, task_id: str) -> str:
        return f"{self._prefix}task:{task_id}"

    def _events_key(self, task_id: str) -> str:
        return f"{self._prefix}events:{task_id}"

    async def create(self, task: Task) -> None:
        try:
            await self._create(
                keys=[self._task_key(task.task_id)],
                args=[task.tenant, task.status.value, serialization.dumps(task)],
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

    async def _write(self, task: Task) -> None:
        try:
            await self._update(
                keys=[self._task_key(task.task_id), self._events_key(task.task_id)],
                args=[task.status.value, serialization.dumps(task), self._retention],
            )
        except ResponseError as error:
            message = str(error)
            if "TERMINAL" in message:
                raise TaskAlreadyTerminalError(task.task_id, message.split()[-1]) from None
            if "NOTASK" in message:
                raise TaskNotFoundError(task.task_id) from None
            raise

    async def update(self, task: Task) -> None:
        stored = await self._redis.hget(self._task_key(task.task_id), "tenant")
        if stored is None or _text(stored) != task.tenant:
            raise TaskNotFoundError(task.task_id)
        updated = task.snapshot()
        updated.updated_at = utcnow()
        await self._write(updated)

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
            sequence = await self._append(
                keys=[self._task_key(task_id), self._events_key(task_id)],
                args=[body, "1" if terminal else "0", self._retention],
            )
        except ResponseError as error:
            if "NOTASK" in str(error):
                raise TaskNotFoundError(task_id) from None
            if "ENDED" in str(error):
                raise TaskAlreadyTerminalError(task_id, "ended") from None
            raise
        return TaskEvent(task_id, int(sequence), stamp, trace_id, payload)

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
        position = f"{after_sequence}-0"
        while True:
            reply: Any = await self._redis.xread(
                {events_key: position}, count=self._batch, block=self._block_ms
            )
            batch = _entries(reply)
            if not batch:
                exists, ended = await self._redis.hmget(task_key, ["tenant", "ended"])
                if exists is None:
                    return  # expired while we waited
                if ended is not None:
                    return  # complete, and everything after `position` was read
                continue
            for entry_id, fields in batch:
                event = self._event(task_id, entry_id, fields)
                position = _text(entry_id)
                yield event
                if event.terminal:
                    return


def _entries(reply: Any) -> list[tuple[bytes, dict[bytes, bytes]]]:
    """The entries of a one-stream XREAD reply (a RESP2 list or a RESP3 map)."""
    if not reply:
        return []
    if isinstance(reply, dict):
        (entries,) = reply.values()
        return list(entries[0] if entries and isinstance(entries[0], list) else entries)
    return list(reply[0][1])


def _text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else value
