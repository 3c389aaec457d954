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
from contextlib import asynccontextmanager, nullcontext
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import structlog
from google.protobuf.message import Message

from core.errors import AgentdError, InternalError
from core.faults import as_store_error
from core.identity import new_trace_id
from core.tracing import current_trace_id
from records.audit import RpcRecord
from server.interceptors.auth import THROTTLED, current_principal
from server.interceptors.wrapping import (
    Around,
    AroundInterceptor,
    Context,
    Handler,
    code_name,
    final_code,
)
from server.status import abort
from stores.audit.base import RpcAuditSink
from stores.audit.deferral import Deferral, deferring

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


class _Recorder:
    """One call's RPC record, written once: when the call ends, or before it aborts.

    For a unary call its task's tool-call records are deferred (`deferral`) and
    committed with the RPC record, in the same transaction, before the response."""

    def __init__(
        self, interceptor: AuditInterceptor, method: str, request: Any, deferral: Deferral | None
    ) -> None:
        self._interceptor = interceptor
        self._method = method
        self._request = request
        self._deferral = deferral
        self._started, self._clock = datetime.now(UTC), time.perf_counter()
        self._facts = _Facts()
        _FACTS.set(self._facts)
        self._written = False

    def _entry(self, code: str) -> RpcRecord | None:
        principal = current_principal()
        if principal is THROTTLED:  # counted and logged by the auth interceptor
            return None
        return RpcRecord(
            time=self._started,
            principal_id=principal.id,
            tenant=principal.tenant,
            method=self._method,
            code=code,
            duration_seconds=time.perf_counter() - self._clock,
            trace_id=current_trace_id() or new_trace_id(),
            request_digest=request_digest(self._request),
            task_id=self._facts.task_id,
            via=principal.via,
        )

    async def record(self, code: str) -> None:
        """Write the RPC record (a failure is logged) and settle the deferred tool-call
        records (a failure is raised: the call must not answer as if they were stored)."""
        if self._written:
            return
        self._written = True
        await self._interceptor.store(self._method, self._entry(code), self._deferral)

    async def before_abort(self, code: Any) -> None:
        try:
            await self.record(code_name(code))
        except Exception:  # the call ends with its own error anyway
            log.error("could not store the tool-call audit record", exc_info=True)


class AuditInterceptor(AroundInterceptor):
    def __init__(
        self, sink: RpcAuditSink, unaudited_methods: Sequence[str] = UNAUDITED_METHODS
    ) -> None:
        super().__init__()
        self._sink = sink
        self._skip = tuple(unaudited_methods)
        self._writing: set[asyncio.Task[None]] = set()

    async def store(self, method: str, entry: RpcRecord | None, deferral: Deferral | None) -> None:
        """Write `entry` and settle `deferral`, in a task of their own, so that a call
        cancelled mid-write (the client left) still gets its records; `flush` waits for
        such writes at shutdown."""
        writing = asyncio.ensure_future(self._store(method, entry, deferral))
        self._writing.add(writing)
        writing.add_done_callback(self._writing.discard)
        await asyncio.shield(writing)

    async def _store(self, method: str, entry: RpcRecord | None, deferral: Deferral | None) -> None:
        if entry is not None:
            try:
                await self._sink.write(entry)
            except Exception:
                log.error("could not write the RPC audit record", method=method, exc_info=True)
        if deferral is not None:
            await deferral.settle()

    async def flush(self) -> None:
        """Wait for the records still being written."""
        await asyncio.gather(*self._writing, return_exceptions=True)

    def around_for(self, method: str) -> Around | None:
        return self._around(method, defer=False)

    def around_for_handler(self, method: str, handler: Handler) -> Around | None:
        # A unary call's tool-call records wait for its RPC record (one commit); a
        # stream's are committed as written (a stream may run for long).
        return self._around(method, defer=handler.unary_unary is not None)

    def _around(self, method: str, *, defer: bool) -> Around | None:
        if self._skip and method.startswith(self._skip):
            return None

        @asynccontextmanager
        async def audited(request: Any, context: Context) -> AsyncIterator[Any]:
            with deferring() if defer else nullcontext() as deferral:
                recorder = _Recorder(self, method, request, deferral)
                error: BaseException | None = None
                try:
                    yield _RecordingContext(context, recorder.before_abort)
                except BaseException as exc:
                    error = exc
                    raise
                finally:
                    try:
                        await recorder.record(final_code(context, error))
                    except Exception as failure:
                        if error is None:  # the response must not go out
                            await abort(context, store_failure(failure))
                        log.error("could not store the tool-call audit record", exc_info=True)

        return audited


def store_failure(failure: Exception) -> AgentdError:
    """The status a call ends with when its tool-call record could not be stored."""
    if isinstance(failure, AgentdError):
        return failure
    return as_store_error(failure) or InternalError(current_trace_id() or "")
