"""Conversation slots in Redis, shared by replicas.

Keys (under the store's prefix), for each conversation key:

    {prefix}conversation:{key}:holder   string: the task running in it
    {prefix}conversation:{key}:queue    list: the tasks waiting, first at the head

Every operation is one Lua call, so it is atomic across replicas. The keys have
no expiry: a task that ends lets go, and a task that ended without letting go is
released by whoever it blocks (see `base`); an empty queue is removed by Redis.
"""

from __future__ import annotations

import redis.asyncio as redis

_HELD = """
local holder = redis.call('GET', KEYS[1])
if holder then
  if holder == ARGV[1] then return '' end
  return holder
end
"""
"""The start of a claim: the holder's id if another task holds the slot, '' if this one does."""

_CLAIM = (
    _HELD
    + """local first = redis.call('LINDEX', KEYS[2], 0)
if first then return first end
redis.call('SET', KEYS[1], ARGV[1])
return ''
"""
)

_ENQUEUE = """
local removed = redis.call('LREM', KEYS[2], 0, ARGV[1])
local limit = tonumber(ARGV[3])
if removed == 0 and limit > 0 and redis.call('LLEN', KEYS[2]) >= limit then return 0 end
if ARGV[2] == '1' then redis.call('LPUSH', KEYS[2], ARGV[1])
else redis.call('RPUSH', KEYS[2], ARGV[1]) end
return 1
"""

_TAKE_TURN = (
    _HELD
    + """local first = redis.call('LINDEX', KEYS[2], 0)
if first and first ~= ARGV[1] then return first end
if first then redis.call('LPOP', KEYS[2]) end
redis.call('SET', KEYS[1], ARGV[1])
return ''
"""
)

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
redis.call('LREM', KEYS[2], 0, ARGV[1])
return 1
"""


def _text(value: bytes | str | None) -> str:
    if value is None:
        return ""
    return value.decode() if isinstance(value, bytes) else value


class RedisConversationSlots:
    def __init__(self, client: redis.Redis, prefix: str = "agentd:") -> None:
        self._redis = client
        self._prefix = prefix
        self._claim = client.register_script(_CLAIM)
        self._enqueue = client.register_script(_ENQUEUE)
        self._take_turn = client.register_script(_TAKE_TURN)
        self._release = client.register_script(_RELEASE)

    def _keys(self, key: str) -> list[str]:
        base = f"{self._prefix}conversation:{key}"
        return [f"{base}:holder", f"{base}:queue"]

    async def claim(self, key: str, task_id: str) -> str:
        return _text(await self._claim(keys=self._keys(key), args=[task_id]))

    async def enqueue(self, key: str, task_id: str, *, first: bool = False, limit: int = 0) -> bool:
        args = [task_id, "1" if first else "0", str(limit)]
        return bool(await self._enqueue(keys=self._keys(key), args=args))

    async def take_turn(self, key: str, task_id: str) -> str:
        return _text(await self._take_turn(keys=self._keys(key), args=[task_id]))

    async def release(self, key: str, task_id: str) -> None:
        await self._release(keys=self._keys(key), args=[task_id])

    async def holder(self, key: str) -> str:
        return _text(await self._redis.get(self._keys(key)[0]))

    async def waiting(self, key: str) -> list[str]:
        return [_text(item) for item in await self._redis.lrange(self._keys(key)[1], 0, -1)]
