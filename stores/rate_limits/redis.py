"""Token buckets in Redis: one rate for a principal (or a tenant) across every replica."""

from __future__ import annotations

from collections.abc import Mapping

import redis.asyncio as redis
import structlog

from stores.rate_limits.base import Limits, Rate

log = structlog.get_logger(__name__)

# Refill by the time elapsed on Redis's clock (one clock for every replica), take a
# token if there is one, else say how long until there is; the bucket expires once it
# would be full again.
_TAKE = """
local now_parts = redis.call('TIME')
local now = tonumber(now_parts[1]) + tonumber(now_parts[2]) / 1000000
local capacity = tonumber(ARGV[1])
local per_second = tonumber(ARGV[2])
local bucket = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(bucket[1]) or capacity
local at = tonumber(bucket[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * per_second)
local wait = 0
if tokens >= 1 then
  tokens = tokens - 1
else
  wait = (1 - tokens) / per_second
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(capacity / per_second) + 1)
return tostring(wait)
"""


class RedisRateLimiter(Limits):
    """Buckets `{prefix}rate:{scope}:{method}:{key}` shared by the replicas.

    If Redis cannot be reached the call is let through (and logged): a rate
    limit protects capacity, it is not an access control.
    """

    def __init__(
        self, client: redis.Redis, limits: Mapping[str, Rate], prefix: str, scope: str
    ) -> None:
        super().__init__(limits)
        self._redis = client
        self._prefix = f"{prefix}rate:{scope}:"
        self._take = client.register_script(_TAKE)

    async def take(self, key: str, method: str) -> float:
        found = self.bucket(method)
        if found is None:
            return 0.0
        bucket, rate = found
        try:
            wait = await self._take(
                keys=[f"{self._prefix}{bucket}:{key}"],
                args=[rate.calls, rate.calls / rate.seconds],
            )
        except (redis.RedisError, OSError):
            log.warning("rate limit not checked: Redis unreachable", method=method)
            return 0.0
        return float(wait)
