"""What the gRPC interceptors do for A2A calls, done for the JSON-RPC binding: rate limits
(the same buckets and method names: SendMessage and SendStreamingMessage take from
Execute's) and one RPC audit record per call (method `/lf.a2a.v1.A2AService/<Method>`,
the code the answer carries; a streamed answer is recorded when it starts)."""

from __future__ import annotations

import hashlib
import math
import time
from dataclasses import dataclass
from datetime import UTC, datetime

import structlog

from core.errors import RateLimitedError
from core.identity import Principal
from core.metrics import RATE_LIMITED
from records.audit import RpcRecord
from stores.audit.base import RpcAuditSink
from stores.rate_limits.base import RateLimiter

log = structlog.get_logger(__name__)

SERVICE = "/lf.a2a.v1.A2AService/"
STARTS_TASKS = frozenset({"SendMessage", "SendStreamingMessage"})
JSONRPC_CODES = {
    -32001: "NOT_FOUND",
    -32002: "FAILED_PRECONDITION",
    -32003: "FAILED_PRECONDITION",
    -32004: "FAILED_PRECONDITION",
    -32005: "INVALID_ARGUMENT",
    -32600: "INVALID_ARGUMENT",
    -32601: "UNIMPLEMENTED",
    -32602: "INVALID_ARGUMENT",
    -32700: "INVALID_ARGUMENT",
}
"""A2A's JSON-RPC error codes as the gRPC code names audit records use (others INTERNAL)."""


def code_of(error_code: int | None) -> str:
    if error_code is None:
        return "OK"
    return JSONRPC_CODES.get(error_code, "INTERNAL")


@dataclass(frozen=True, slots=True)
class HttpGuard:
    """Rate limiters and the RPC audit sink of the server."""

    per_principal: RateLimiter
    per_tenant: RateLimiter
    audit: RpcAuditSink

    async def limit(self, principal: Principal, method: str) -> RateLimitedError | None:
        """The refusal when a bucket of the caller is empty, else None (a token taken)."""
        bucket = "Execute" if method in STARTS_TASKS else method
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
        started: datetime,
        clock: float,
        trace_id: str,
        body: bytes,
        task_id: str = "",
    ) -> None:
        entry = RpcRecord(
            time=started,
            principal_id=principal.id,
            tenant=principal.tenant,
            method=SERVICE + (method or "unknown"),
            code=code,
            duration_seconds=time.perf_counter() - clock,
            trace_id=trace_id,
            request_digest=hashlib.sha256(body).hexdigest(),
            task_id=task_id,
            via=principal.via,
        )
        try:
            await self.audit.write(entry)
        except Exception:
            log.error("could not write the RPC audit record", method=method, exc_info=True)


def now() -> datetime:
    return datetime.now(UTC)
