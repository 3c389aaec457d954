"""The ingestion runner: runs ingestion jobs, at most `parallel` at a time in a process
(the others wait QUEUED), and keeps them from being lost when a process dies.

- A background job (AddDocument with `background`) is stored QUEUED with its content; a
  runner's loop claims it when it has a free slot, renews its lease while it runs and
  stores its progress after each batch of chunks.
- A job an AddDocument call waits on is held by the caller's process from the start
  (QUEUED with an owner, no content stored) and runs in that call.
- Any runner takes over a job whose owner let its lease lapse (the process died, kill -9
  included), and a runner started with a stable replica id (AGENTD_REPLICA_ID) takes over
  its own previous life's jobs at once. A background job interrupted fewer than
  `attempts` times is queued again and re-run from its stored content (the chunks of the
  interrupted run are deleted first); any other is FAILED (reason SHUTTING_DOWN) with
  nothing of its document left. A process shutting down hands its background jobs back
  to the queue (not counted as an attempt).
- A failure leaves nothing half-written: the chunks stored so far are deleted, then the
  document's record, then the job is FAILED with the error's reason and message. A
  replaced document (same external id) goes only when its successor is READY.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import replace
from datetime import UTC, datetime, timedelta

import structlog
from opentelemetry import trace

from agent.knowledge.documents import Abandoned, KnowledgeBases, Progress
from core.errors import AgentdError, DocumentGoneError, InternalError, ResourceExhaustedError
from core.identity import new_trace_id
from core.tracing import current_trace_id, trace_id_of
from records.knowledge.items import DocumentRecord, Scope
from records.knowledge.jobs import MAX_ERROR_CHARS, IngestionJob
from stores.knowledge.catalog import KnowledgeCatalog
from stores.knowledge.jobs import IngestionJobStore

log = structlog.get_logger(__name__)
SWEEP = 20
"""Expired jobs and DELETING documents seen to per tick."""


def _now() -> datetime:
    return datetime.now(UTC)


def _trace_id() -> str:
    """The trace id of the call being served, else the current span's, else a new one
    (a background job's)."""
    return current_trace_id() or trace_id_of(trace.get_current_span()) or new_trace_id()


class IngestionRunner:
    """Runs a process's ingestion jobs; `start()` its loop, `close()` it at shutdown."""

    def __init__(
        self,
        jobs: IngestionJobStore,
        catalog: KnowledgeCatalog,
        knowledge: KnowledgeBases,
        *,
        owner: str,
        parallel: int = 2,
        lease_seconds: float = 30.0,
        attempts: int = 3,
        poll_seconds: float = 1.0,
        reclaim_own: bool = False,
        max_waiting: int = 100,
    ) -> None:
        self.jobs, self.catalog, self.knowledge = jobs, catalog, knowledge
        self.owner = owner
        self.lease = timedelta(seconds=lease_seconds)
        self.attempts = attempts
        self.poll_seconds = min(poll_seconds, lease_seconds / 3)
        self._reclaim_own = reclaim_own
        self.max_waiting = max_waiting
        self._slots = asyncio.Semaphore(parallel)
        self._running: set[asyncio.Task[None]] = set()
        self._wake = asyncio.Event()
        self._loop: asyncio.Task[None] | None = None
        self._closing = False

    def start(self) -> None:
        self._loop = asyncio.create_task(self._run_loop(), name="agentd-ingestion")

    async def close(self) -> None:
        """Stop claiming; hand running background jobs back to the queue."""
        self._closing = True
        if self._loop is not None:
            self._loop.cancel()
            await asyncio.gather(self._loop, return_exceptions=True)
        for task in list(self._running):
            task.cancel()
        await asyncio.gather(*self._running, return_exceptions=True)

    async def submit(self, job: IngestionJob, content: bytes) -> None:
        """Queue a background job (its content stored with it); ResourceExhaustedError
        when the tenant has `max_waiting` background jobs not ended yet."""
        if await self.jobs.waiting(job.tenant) >= self.max_waiting:
            raise ResourceExhaustedError(
                f"{self.max_waiting} background ingestion jobs of the tenant are queued or "
                "running (AGENTD_KNOWLEDGE_INGESTION_MAX_WAITING); retry when some have ended",
                retry_after_seconds=10.0,
            )
        await self.jobs.add(replace(job, background=True), content)
        self._wake.set()

    async def run(self, job: IngestionJob, content: bytes) -> IngestionJob:
        """Run a job in the caller (waiting for a free slot); the ended job, or its error."""
        held = replace(job, owner=self.owner, lease_until=_now() + self.lease)
        await self.jobs.add(held, None)
        async with self._slots:
            now = _now()
            started = await self.jobs.start(held, self.owner, now, now + self.lease)
            if started is None:
                trace_id = _trace_id()
                log.warning("ingestion job taken over while it waited", trace_id=trace_id)
                raise InternalError(trace_id)
            return await self._ingest(started, content)

    async def _ingest(self, job: IngestionJob, content: bytes) -> IngestionJob:
        try:
            await self.knowledge.delete_document(job.tenant, job.document_id)  # a past try's
            document = await self.catalog.get_document(job.tenant, job.document_id)
            if document is None or document.state != "INGESTING":
                raise DocumentGoneError(job.document_id)
            _, count = await self.knowledge.add_document(
                job.tenant,
                job.knowledge_base_id,
                content,
                job.media_type,
                progress=lambda step: self._progress(job, step),
                document_id=job.document_id,
            )
            del content
            check, replaced = await self.jobs.succeed(job, count, _now())
            if check.lost:
                raise Abandoned
            if not check.go_on:
                raise DocumentGoneError(job.document_id)
        except Abandoned:
            if await self.jobs.get(job.tenant, job.job_id) is None:
                # not taken over: deleted with its knowledge base; its chunks are nobody's
                await self.knowledge.delete_document(job.tenant, job.document_id)
                raise DocumentGoneError(job.document_id) from None
            trace_id = _trace_id()
            log.warning("ingestion job taken over", job=job.job_id, trace_id=trace_id)
            raise InternalError(trace_id) from None
        except asyncio.CancelledError:
            if job.background and self._closing:
                await self.jobs.release(job, uncount=True)
            else:
                await self._fail(job, "DEADLINE_EXCEEDED", "the call ended before the ingestion")
            raise
        except AgentdError as error:
            await self._fail(job, error.reason, error.message)
            raise
        except Exception as error:
            # the details (a database error holds its statement and parameters) go to the
            # server's log only; the job and the caller get the trace id to quote
            internal = InternalError(_trace_id())
            log.exception("ingestion failed", job=job.job_id, trace_id=internal.trace_id)
            await self._fail(job, internal.reason, internal.message)
            raise internal from error
        for old in replaced:
            await self._remove(old)
        ended = await self.jobs.get(job.tenant, job.job_id)
        assert ended is not None  # it just SUCCEEDED
        return ended

    async def _progress(self, job: IngestionJob, step: Progress) -> None:
        check = await self.jobs.progress(
            job, step.chunks_done, step.chunks_total, _now() + self.lease
        )
        if check.lost:
            raise Abandoned
        if not check.go_on:
            raise DocumentGoneError(job.document_id)

    async def _fail(self, job: IngestionJob, reason: str, error: str) -> None:
        """Leave nothing of the document (chunks first, then its record), then FAILED."""
        await self.knowledge.delete_document(job.tenant, job.document_id)
        await self.catalog.delete_document(job.tenant, job.document_id)
        await self.jobs.fail(job, reason, error[:MAX_ERROR_CHARS], _now())

    async def _remove(self, document: DocumentRecord) -> None:
        """A DELETING document's chunks, then its record."""
        await self.knowledge.store.delete(
            Scope(document.tenant, "chunk", document_id=document.document_id)
        )
        await self.catalog.delete_document(document.tenant, document.document_id)

    async def _run_loop(self) -> None:
        own = self._reclaim_own
        while not self._closing:  # until close() cancels it
            try:
                await self.tick(reclaim_own=own)
                own = False
            except Exception:  # the database may be away for a while: try again later
                log.exception("ingestion runner tick failed")
            self._wake.clear()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._wake.wait(), self.poll_seconds)

    async def tick(self, *, reclaim_own: bool = False) -> None:
        """Renew this process's leases, take over lapsed jobs, remove replaced documents'
        chunks, and claim QUEUED jobs while a slot is free."""
        now = _now()
        until = now + self.lease
        await self.jobs.renew(self.owner, until)
        for lapsed in await self.jobs.expired(
            now, limit=SWEEP, owner=self.owner if reclaim_own else ""
        ):
            await self._take_over(lapsed, until)
        for document in await self.catalog.deleting_documents(limit=SWEEP):
            await self._remove(document)
        while not self._closing and not self._slots.locked():
            job = await self.jobs.claim(self.owner, now, until)
            if job is None:
                return
            await self._slots.acquire()
            task = asyncio.create_task(self._background(job), name=f"ingest-{job.job_id}")
            self._running.add(task)
            task.add_done_callback(self._running.discard)

    async def _take_over(self, lapsed: IngestionJob, until: datetime) -> None:
        job = await self.jobs.take_over(lapsed, self.owner, until)
        if job is None:
            return  # another process was first
        died = f"the process running it ({lapsed.owner}) stopped"
        if job.background and job.state == "RUNNING" and job.attempts < self.attempts:
            log.warning("re-running an interrupted ingestion job", job=job.job_id, why=died)
            await self.jobs.release(job)
            self._wake.set()
            return
        why = (
            f"{died} {job.attempts} times"
            if job.background
            else f"{died}; the AddDocument call waiting on it failed with it"
        )
        log.warning("failing an interrupted ingestion job", job=job.job_id, why=why)
        await self._fail(job, "SHUTTING_DOWN", why)

    async def _background(self, job: IngestionJob) -> None:
        try:
            content = await self.jobs.content(job.tenant, job.job_id)
            if content is None:
                await self._fail(job, "INTERNAL", "the job's stored content is missing")
                return
            with contextlib.suppress(AgentdError):  # the job's record says what went wrong
                await self._ingest(job, content)
        finally:
            self._slots.release()
