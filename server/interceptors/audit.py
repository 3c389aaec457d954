"""Audit: one record per RPC, written before the response goes out (streams: when they end).

It wraps authentication, so a refused call is recorded too (principal
"unauthenticated"). grpc.aio sends the status as soon as a handler calls
`context.abort`, so the handlers inside get a context whose `abort` writes
the record first. The record holds the caller, the method, the final
status code, the duration, the trace id, a SHA-256 of the request bytes as
received and, when the call concerned a task, its id (`note_task`). Calls
refused by the auth failure throttle are not recorded one by one (the auth
interceptor logs them per address).
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import structlog
from google.protobuf.message import Message

from audit.records import RpcRecord
from core.identity import new_trace_id
from server.interceptors.auth import THROTTLED, current_principal
from server.interceptors.tracing import current_trace_id
from server.interceptors.wrapping import Around, AroundInterceptor, Context, code_name, final_code
from stores.audit.base import RpcAuditSink

log = structlog.get_logger(__name__)

UNAUDITED_METHODS = ("/grpc.health.v1.Health/",)
"""Probes every few seconds from every kubelet: counted in metrics, not audited."""


@dataclass
class _Facts:
    task_id: str = ""


class _RecordingContext:
    """The call's context, but `abort` waits for the audit record to be written first."""

    def __init__(self, context: Context, before_abort: Callable[[Any], Awaitable[None]]) -> None:
        self._context = context
        self._before_abort = before_abort

    def __getattr__(self, name: str) -> Any:
        return getattr(self._context, name)

    async def abort(self, code: Any, details: str = "", trailing_metadata: Any = ()) -> None:
        await self._before_abort(code)
        await self._context.abort(code, details, trailing_metadata)


_FACTS: ContextVar[_Facts | None] = ContextVar("agentd_audit_facts", default=None)


def note_task(task_id: str) -> None:
    """Record that the call being served concerns this task."""
    facts = _FACTS.get()
    if facts is not None:
        facts.task_id = task_id


def request_digest(request: Any) -> str:
    if isinstance(request, bytes):
        return hashlib.sha256(request).hexdigest()
    if isinstance(request, Message):
        return hashlib.sha256(request.SerializeToString(deterministic=True)).hexdigest()
    return ""  # a streamed request


class AuditInterceptor(AroundInterceptor):
    def __init__(
        self, sink: RpcAuditSink, unaudited_methods: Sequence[str] = UNAUDITED_METHODS
    ) -> None:
        super().__init__()
        self._sink = sink
        self._skip = tuple(unaudited_methods)
        self._writing: set[asyncio.Task[None]] = set()

    async def _write(self, record: RpcRecord) -> None:
        # Its own task, so a call cancelled mid-write (the client left) still gets its
        # record; `flush` waits for such writes at shutdown.
        writing = asyncio.ensure_future(self._sink.write(record))
        self._writing.add(writing)
        writing.add_done_callback(self._writing.discard)
        await asyncio.shield(writing)

    async def flush(self) -> None:
        """Wait for the records still being written."""
        await asyncio.gather(*self._writing, return_exceptions=True)

    def around_for(self, method: str) -> Around | None:
        if self._skip and method.startswith(self._skip):
            return None

        @asynccontextmanager
        async def audited(request: Any, context: Context) -> AsyncIterator[Any]:
            started, clock = datetime.now(UTC), time.perf_counter()
            facts = _Facts()
            _FACTS.set(facts)
            written = False

            async def record(code: str) -> None:
                nonlocal written
                if written:
                    return
                written = True
                principal = current_principal()
                if principal is THROTTLED:  # counted and logged by the auth interceptor
                    return
                entry = RpcRecord(
                    time=started,
                    principal_id=principal.id,
                    tenant=principal.tenant,
                    method=method,
                    code=code,
                    duration_seconds=time.perf_counter() - clock,
                    trace_id=current_trace_id() or new_trace_id(),
                    request_digest=request_digest(request),
                    task_id=facts.task_id,
                    via=principal.via,
                )
                try:
                    await self._write(entry)
                except Exception:
                    log.error("could not write the RPC audit record", method=method, exc_info=True)

            async def before_abort(code: Any) -> None:
                await record(code_name(code))

            error: BaseException | None = None
            try:
                yield _RecordingContext(context, before_abort)
            except BaseException as exc:
                error = exc
                raise
            finally:
                await record(final_code(context, error))

        return audited
