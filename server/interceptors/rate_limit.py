"""Rate limits: token buckets per principal and per tenant, per method.

Runs after authentication (it needs the principal). A call over either
limit is answered RESOURCE_EXHAUSTED (reason RATE_LIMITED) with a
`google.rpc.RetryInfo` saying when a token is back. With Redis configured
the buckets are shared by every replica; on the embedded defaults they live
in the process.
"""

from __future__ import annotations

import math
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

from core.errors import RateLimitedError
from core.metrics import RATE_LIMITED
from server.interceptors.auth import current_principal
from server.interceptors.wrapping import Around, AroundInterceptor, Context
from server.status import abort
from stores.rate_limits.base import RateLimiter

LIMITED_SERVICES = ("/agentd.v1.AgentService/", "/lf.a2a.v1.A2AService/")
ALIASES = {
    "/lf.a2a.v1.A2AService/SendMessage": "Execute",
    "/lf.a2a.v1.A2AService/SendStreamingMessage": "Execute",
}
"""A2A's methods that start tasks take from Execute's buckets; its others go by their own
names (or '*')."""


class RateLimitInterceptor(AroundInterceptor):
    def __init__(
        self,
        per_principal: RateLimiter,
        per_tenant: RateLimiter,
        services: Sequence[str] = LIMITED_SERVICES,
    ) -> None:
        super().__init__()
        self._principal = per_principal
        self._tenant = per_tenant
        self._services = tuple(services)

    def around_for(self, full: str) -> Around | None:
        method = ALIASES.get(full) or full.rsplit("/", 1)[-1]
        if not full.startswith(self._services) or not (
            self._principal.rate_for(method) or self._tenant.rate_for(method)
        ):
            return None  # nothing limits this method: no wrapper at all

        @asynccontextmanager
        async def limited(request: Any, context: Context) -> AsyncIterator[None]:
            principal = current_principal()
            for scope, limiter, key in (
                ("principal", self._principal, f"{principal.tenant}\x00{principal.id}"),
                ("tenant", self._tenant, principal.tenant),
            ):
                wait = await limiter.take(key, method)
                if wait > 0:
                    RATE_LIMITED.labels(method, scope).inc()
                    rate = limiter.rate_for(method)
                    assert rate is not None
                    error = RateLimitedError(
                        f"rate limit of the {scope} for {method} reached "
                        f"({rate.calls} per {rate.seconds:g} s); retry in {math.ceil(wait)} s",
                        retry_after_seconds=round(wait, 3),
                    )
                    await abort(context, error)
            yield

        return limited
