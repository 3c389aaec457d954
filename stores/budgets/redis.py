"""Budget counters in Redis, shared by every replica.

Keys of a counter (under the meter's prefix):

    {prefix}budget:{counter}          hash: `spent`, `reserved` (what its live
                                      reservations hold, in all)
    {prefix}budget:{counter}:holds    hash: reservation id -> the amount it holds
    {prefix}budget:{counter}:lapses   sorted set: reservation id, by when it lapses

Each method is one Lua script over the keys of the counters it names, so it is atomic
against every other replica's; every script first drops the counter's lapsed
reservations (by Redis's clock, `TIME`: one clock for every replica). Every key a script
touches is passed in KEYS; on Redis Cluster the counters of one reservation must then
share a slot, which a hash tag in the prefix gives them (`agentd:{budgets}:`).

Only `seed` makes a counter, with the ttl it is asked for (the caller's: about its
window's length and a day; None: none): `reserve` answers that a counter is missing
(nothing reserved), and `settle` leaves a missing counter missing, so a counter lost
with a Redis restart is seeded again from the ledger, never restarted at 0. The holds
and lapses of a counter expire with it, and are dropped when they outlive it (a counter
made again starts with no reservations).

`settle` releases the reservation on the counters it is given only (a script names its
keys before it runs): a counter of the reservation left out keeps its hold until it
lapses, so the caller names every one, with 0 where nothing was spent.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import redis.asyncio as redis

from records.usage.budgets import Charge, Counter, Refusal

# Lua numbers are doubles: those handed back to Redis as integers go through `int`
# (tostring would write 1e+15). `live(k, at)` drops the lapsed reservations of the
# counter whose keys start at KEYS[k]; false when the counter does not exist (its holds
# and lapses are then dropped too). `keep(k, new, ttl)` gives a counter made just now
# the default ttl (milliseconds, 0: none), and its holds and lapses the counter's expiry.
_COMMON = """
local function int(n) return string.format('%d', n) end
local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) + tonumber(t[2]) / 1000000
end
local function live(k, at)
  local counter, holds, lapses = KEYS[k], KEYS[k + 1], KEYS[k + 2]
  if redis.call('EXISTS', counter) == 0 then
    redis.call('DEL', holds, lapses)
    return false
  end
  while true do
    local lapsed = redis.call('ZRANGEBYSCORE', lapses, '-inf', at, 'LIMIT', 0, 500)
    if #lapsed == 0 then return true end
    local total = 0
    for _, amount in ipairs(redis.call('HMGET', holds, unpack(lapsed))) do
      total = total + (tonumber(amount) or 0)
    end
    redis.call('HINCRBY', counter, 'reserved', int(-total))
    redis.call('HDEL', holds, unpack(lapsed))
    redis.call('ZREM', lapses, unpack(lapsed))
  end
end
local function keep(k, new, ttl)
  if new and ttl > 0 then redis.call('PEXPIRE', KEYS[k], ttl) end
  local left = redis.call('PTTL', KEYS[k])
  if left > 0 then
    redis.call('PEXPIRE', KEYS[k + 1], left)
    redis.call('PEXPIRE', KEYS[k + 2], left)
  end
end
"""

# ARGV: reservation, its ttl (seconds), the default ttl (ms), then per charge its amount,
# limit and soft limit. Every hard limit is checked before any soft one; a charge fits
# when what its counter has spent and reserved, with the charges before it on the same
# counter, and its amount stay within the limit. {-1}: reserved; {-2, index}: that
# counter does not exist (nothing reserved: seed it); else {index, soft, room}.
_RESERVE = """
local at = now()
local count = #KEYS / 3
local known, used = {}, {}
for i = 1, count do
  local k = 3 * i - 2
  known[i] = live(k, at)
  if not known[i] then return {-2, i - 1} end
  local found = redis.call('HMGET', KEYS[k], 'spent', 'reserved')
  used[i] = (tonumber(found[1]) or 0) + (tonumber(found[2]) or 0)
end
for soft = 0, 1 do
  local before = {}
  for i = 1, count do
    local counter = KEYS[3 * i - 2]
    local amount = tonumber(ARGV[3 * i + 1])
    local limit = tonumber(ARGV[3 * i + 2 + soft])
    local taken = used[i] + (before[counter] or 0)
    if limit > 0 and taken + amount > limit then
      return {i - 1, soft, math.max(0, limit - taken)}
    end
    before[counter] = (before[counter] or 0) + amount
  end
end
local lapses_at = at + tonumber(ARGV[2])
for i = 1, count do
  local k = 3 * i - 2
  redis.call('HINCRBY', KEYS[k], 'reserved', ARGV[3 * i + 1])
  redis.call('HINCRBY', KEYS[k + 1], ARGV[1], ARGV[3 * i + 1])
  redis.call('ZADD', KEYS[k + 2], lapses_at, ARGV[1])
  keep(k, not known[i], tonumber(ARGV[3]))
end
return {-1}
"""

# ARGV: reservation, the default ttl (ms), then per counter what the call spent. A counter
# that is gone is left gone: the ledger, which it is seeded from, has the call.
_SETTLE = """
local at = now()
for i = 1, #KEYS / 3 do
  local k = 3 * i - 2
  if live(k, at) then
    local held = redis.call('HGET', KEYS[k + 1], ARGV[1])
    if held then
      redis.call('HINCRBY', KEYS[k], 'reserved', int(-tonumber(held)))
      redis.call('HDEL', KEYS[k + 1], ARGV[1])
      redis.call('ZREM', KEYS[k + 2], ARGV[1])
    end
    redis.call('HINCRBY', KEYS[k], 'spent', ARGV[2 + i])
    keep(k, false, tonumber(ARGV[2]))
  end
end
return 1
"""

# ARGV: spent, the ttl in milliseconds ('': none). 1: seeded; 0: the counter exists.
_SEED = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HSET', KEYS[1], 'spent', ARGV[1], 'reserved', 0)
if ARGV[2] ~= '' then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return 1
"""

# Per counter: spent, reserved (zeros for one that does not exist).
_READ = """
local at = now()
local found = {}
for i = 1, #KEYS / 3 do
  local k = 3 * i - 2
  if live(k, at) then
    local values = redis.call('HMGET', KEYS[k], 'spent', 'reserved')
    table.insert(found, tonumber(values[1]) or 0)
    table.insert(found, tonumber(values[2]) or 0)
  else
    table.insert(found, 0)
    table.insert(found, 0)
  end
end
return found
"""


class RedisBudgetMeter:
    """BudgetMeter on Redis (`client`, owned by the caller), keys under `prefix`."""

    def __init__(self, client: redis.Redis, prefix: str) -> None:
        self._redis = client
        self._prefix = f"{prefix}budget:"
        self._reserve = client.register_script(_COMMON + _RESERVE)
        self._settle = client.register_script(_COMMON + _SETTLE)
        self._seed = client.register_script(_SEED)
        self._read = client.register_script(_COMMON + _READ)

    def _keys(self, counter: str) -> list[str]:
        key = self._prefix + counter
        return [key, f"{key}:holds", f"{key}:lapses"]

    async def reserve(
        self, reservation: str, charges: Sequence[Charge], ttl_seconds: float
    ) -> Refusal | None:
        if not charges:
            return None
        keys: list[str] = []
        args: list[Any] = [reservation, repr(float(ttl_seconds)), 0]
        for charge in charges:
            keys.extend(self._keys(charge.counter))
            args.extend((charge.amount, charge.limit, charge.soft_limit))
        index, *rest = await self._reserve(keys=keys, args=args)
        if int(index) == -2:
            return Refusal(int(rest[0]), False, 0, missing=True)
        if int(index) < 0:
            return None
        soft, room = rest
        return Refusal(int(index), bool(int(soft)), int(room))

    async def settle(self, reservation: str, actual: Mapping[str, int]) -> None:
        if not actual:
            return
        keys = [key for counter in actual for key in self._keys(counter)]
        await self._settle(keys=keys, args=[reservation, 0, *actual.values()])

    async def seed(self, counter: str, spent: int, ttl_seconds: float | None) -> None:
        ttl = "" if ttl_seconds is None else _ms(ttl_seconds)
        await self._seed(keys=self._keys(counter), args=[spent, ttl])

    async def exists(self, counter: str) -> bool:
        return bool(await self._redis.exists(self._prefix + counter))

    async def read(self, counters: Sequence[str]) -> dict[str, Counter]:
        unique = list(dict.fromkeys(counters))
        if not unique:
            return {}
        keys = [key for counter in unique for key in self._keys(counter)]
        values = await self._read(keys=keys, args=[])
        return {
            counter: Counter(int(values[2 * i]), int(values[2 * i + 1]))
            for i, counter in enumerate(unique)
        }


def _ms(seconds: float) -> int:
    """A ttl in whole milliseconds, at least one (Redis deletes a key given none)."""
    return max(1, math.ceil(seconds * 1000))
