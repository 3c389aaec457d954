"""What the gRPC interceptors do for a call, done for one on the HTTP address: who calls
(the server's Authenticator, API keys and JWTs as `authorization: Bearer`; the anonymous
principal with its AGENTD_ANONYMOUS roles when auth is off; a gateway's end user named in
`agentd-on-behalf-of`), the rate limits (the same buckets as gRPC, by the door's name of
the call; one that starts a task takes from Execute's) and one RPC audit record."""

from __future__ import annotations

import hashlib
import math
import time
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

import structlog

from auth.authenticator import Authenticator
from auth.delegation import acting_for
from core.errors import RateLimitedError
from core.identity import Principal
from core.metrics import RATE_LIMITED
from records.audit import RpcRecord
from stores.audit.base import RpcAuditSink
from stores.rate_limits.base import RateLimiter

log = structlog.get_logger(__name__)


@dataclass(frozen=True, slots=True)
class Started:
    """When a call started, by the wall clock (its record's time) and the monotonic one."""

    time: datetime
    clock: float

    @classmethod
    def now(cls) -> Started:
        return cls(datetime.now(UTC), time.perf_counter())


@dataclass(frozen=True, slots=True)
class GuardChecks:
    """The server's authenticator (None: auth is off), rate limiters and RPC audit sink,
    and the largest request body."""

    authenticator: Authenticator | None
    anonymous: Principal
    """Every caller with auth off (AGENTD_ANONYMOUS's roles)."""
    gateway_roles: tuple[str, ...]
    per_principal: RateLimiter
    per_tenant: RateLimiter
    audit: RpcAuditSink
    max_body_bytes: int

    async def caller(self, headers: Sequence[tuple[str, str]]) -> Principal:
        """Whom the credentials name (UnauthenticatedError when they are missing or
        refused while auth is on); the anonymous principal with auth off."""
        if self.authenticator is None:
            return self.anonymous
        return await self.authenticator.authenticate(headers)

    def acting_for(self, caller: Principal, headers: Sequence[tuple[str, str]]) -> Principal:
        """The end user a gateway names, else `caller` (PermissionDeniedError,
        InvalidArgumentError when it may not say so: `auth.delegation`)."""
        return acting_for(caller, headers, self.gateway_roles)

    async def limit(self, principal: Principal, bucket: str) -> RateLimitedError | None:
        """The refusal when a bucket of the caller is empty, else None (a token taken)."""
        for scope, limiter, key in (
            ("principal", self.per_principal, f"{principal.tenant}\x00{principal.id}"),
            ("tenant", self.per_tenant, principal.tenant),
        ):
            rate = limiter.rate_for(bucket)
            if rate is None:
                continue
            wait = await limiter.take(key, bucket)
            if wait > 0:
                RATE_LIMITED.labels(bucket, scope).inc()
                return RateLimitedError(
                    f"rate limit of the {scope} for {bucket} reached ({rate.calls} per "
                    f"{rate.seconds:g} s); retry in {math.ceil(wait)} s",
                    retry_after_seconds=round(wait, 3),
                )
        return None

    async def record(
        self,
        principal: Principal,
        method: str,
        code: str,
        *,
        started: Started,
        trace_id: str,
        body: bytes,
        task_id: str = "",
    ) -> None:
        """Write the call's RPC record (`method` in full: `/<service>/<name>`); a failure
        to write it is logged, not raised (the answer is already decided)."""
        entry = RpcRecord(
            time=started.time,
            principal_id=principal.id,
            tenant=principal.tenant,
            method=method,
            code=code,
            duration_seconds=time.perf_counter() - started.clock,
            trace_id=trace_id,
            request_digest=hashlib.sha256(body).hexdigest(),
            task_id=task_id,
            via=principal.via,
        )
        try:
            await self.audit.write(entry)
        except Exception:
            log.error("could not write the RPC audit record", method=method, exc_info=True)
