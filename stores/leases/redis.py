"""Leases on Redis, shared by every replica.

Keys (under the store's prefix):

    {prefix}lease:{task_id}   string: the holder's replica id, with the lease's expiry
    {prefix}active            hash: task id -> tenant, for every task neither ended nor parked
    {prefix}parked            hash: task id -> tenant, for every parked task (never leased)

A lease is renewed, released or dropped only by its holder (checked and
done in one Lua call). Claiming is `SET NX` of an active task's lease, in one Lua
call with the check that it is active: of several replicas racing for an orphan or a
woken task, exactly one wins, and a task parked meanwhile is never claimed. Parking
drops the holder's lease and moves the task from active to parked in one Lua call
(refused when another replica holds the lease: that one runs the task now); waking
moves it back, only if it is parked, so exactly one of racing wakers succeeds.
"""

from __future__ import annotations

from collections.abc import Collection

import redis.asyncio as redis

from stores.leases.base import new_replica_id

_RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  else
    table.insert(lost, i)
  end
end
return lost
"""

_RELEASE = """
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
if ARGV[2] == '1' then
  redis.call('HDEL', KEYS[2], ARGV[3])
  redis.call('HDEL', KEYS[3], ARGV[3])
end
return 1
"""

_PARK = """
local holder = redis.call('GET', KEYS[1])
if holder then
  if holder ~= ARGV[1] then return 0 end
  redis.call('DEL', KEYS[1])
end
redis.call('HDEL', KEYS[2], ARGV[2])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
return 1
"""

_WAKE = """
local tenant = redis.call('HGET', KEYS[2], ARGV[1])
if not tenant then return 0 end
redis.call('HDEL', KEYS[2], ARGV[1])
redis.call('HSET', KEYS[1], ARGV[1], tenant)
return 1
"""

_CLAIM = """
if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 0 then return 0 end
if redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 1 end
return 0
"""

_BATCH = 200
_MAX_SCAN = 10_000


class RedisLeases:
    shared = True

    def __init__(
        self,
        client: redis.Redis,
        prefix: str = "agentd:",
        *,
        ttl_seconds: float = 10.0,
        replica: str | None = None,
    ) -> None:
        if ttl_seconds <= 0:
            raise ValueError("a lease must last a positive time")
        self._redis = client
        self._prefix = prefix
        self._active = f"{prefix}active"
        self._parked = f"{prefix}parked"
        self.ttl_seconds = ttl_seconds
        self.replica = replica or new_replica_id()
        self._renew = client.register_script(_RENEW)
        self._release = client.register_script(_RELEASE)
        self._park = client.register_script(_PARK)
        self._wake = client.register_script(_WAKE)
        self._claim = client.register_script(_CLAIM)

    @property
    def _ttl_ms(self) -> int:
        return max(1, int(self.ttl_seconds * 1000))

    def _lease(self, task_id: str) -> str:
        return f"{self._prefix}lease:{task_id}"

    async def acquire(self, tenant: str, task_id: str) -> None:
        async with self._redis.pipeline(transaction=True) as pipe:
            pipe.set(self._lease(task_id), self.replica, px=self._ttl_ms)
            pipe.hset(self._active, task_id, tenant)
            await pipe.execute()

    async def renew(self, task_ids: Collection[str]) -> set[str]:
        ids = list(task_ids)
        lost: set[str] = set()
        for start in range(0, len(ids), _BATCH):
            chunk = ids[start : start + _BATCH]
            indexes = await self._renew(
                keys=[self._lease(i) for i in chunk], args=[self.replica, self._ttl_ms]
            )
            lost.update(chunk[int(index) - 1] for index in indexes)
        return lost

    async def release(self, task_id: str) -> None:
        await self._release(
            keys=[self._lease(task_id), self._active, self._parked],
            args=[self.replica, "0", task_id],
        )

    async def finish(self, task_id: str) -> None:
        await self._release(
            keys=[self._lease(task_id), self._active, self._parked],
            args=[self.replica, "1", task_id],
        )

    async def park(self, tenant: str, task_id: str) -> None:
        # Refused (0) when another replica holds the lease: it took the task over and runs
        # it, so this replica's wait is stale; the task stays active under that lease.
        await self._park(
            keys=[self._lease(task_id), self._active, self._parked],
            args=[self.replica, task_id, tenant],
        )

    async def wake(self, task_id: str) -> bool:
        return bool(await self._wake(keys=[self._active, self._parked], args=[task_id]))

    async def claim(self, task_id: str) -> bool:
        return bool(
            await self._claim(
                keys=[self._lease(task_id), self._active],
                args=[self.replica, self._ttl_ms, task_id],
            )
        )

    async def claim_orphans(self, limit: int) -> list[tuple[str, str]]:
        claimed: list[tuple[str, str]] = []
        seen = 0
        cursor = 0
        while limit > len(claimed) and seen < _MAX_SCAN:
            cursor, entries = await self._redis.hscan(self._active, cursor, count=_BATCH)
            assert isinstance(entries, dict)
            items = [(_text(k), _text(v)) for k, v in entries.items()]
            seen += len(items)
            if items:
                async with self._redis.pipeline(transaction=False) as pipe:
                    for task_id, _ in items:
                        pipe.exists(self._lease(task_id))
                    held = await pipe.execute()
                for (task_id, tenant), exists in zip(items, held, strict=True):
                    if exists or len(claimed) >= limit:
                        continue
                    if await self.claim(task_id):  # still active (not parked since)
                        claimed.append((tenant, task_id))
            if cursor == 0:
                break
        return claimed


def _text(value: bytes | str) -> str:
    return value.decode() if isinstance(value, bytes) else value
