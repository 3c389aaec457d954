"""Ingestion jobs, kept where the knowledge base catalog is (in process, or the server's
SQLite or PostgreSQL database: `stores.knowledge.sql_jobs`).

Contract (tests/contract/test_ingestion_jobs.py, on memory, SQLite and PostgreSQL):
- Every call naming a tenant is that tenant's; another tenant's jobs are never found or
  listed. Lists are pages in id order (ids grow with time): `size` jobs after the cursor
  `after` (its id), with the cursor of the next page when more follow.
- A job is QUEUED, then RUNNING (owned by one process, `owner`, until `lease_until`,
  which the owner renews), then SUCCEEDED or FAILED. Every change of a running job names
  its owner and is refused (`JobCheck.lost`) once another process has taken it over.
- `claim` hands the oldest unowned QUEUED job to one caller only, even when processes
  claim at once; a background job's content is kept with it until it ends.
- `succeed` is one transaction: the job SUCCEEDED, its document READY and any other READY
  document of the same knowledge base and external id DELETING (returned), so searches
  see the old document or the new one, never both and never neither.
- `expired` lists jobs whose owner let the lease lapse; `take_over` hands one of them to a
  new owner, compare-and-set, so that of two processes taking it over one only does.
- `release` hands a running job back to the queue (`uncount`: without its attempt).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Protocol

from records.knowledge.items import DocumentRecord
from records.knowledge.jobs import ENDED, IngestionJob, JobCheck
from records.paging import KeyCursor, Page, id_after, id_cursor
from stores.knowledge.catalog import InMemoryKnowledgeCatalog, KnowledgeCatalog, SqlKnowledgeCatalog

ACTIVE = ("QUEUED", "RUNNING")


class IngestionJobStore(Protocol):
    async def add(self, job: IngestionJob, content: bytes | None) -> None: ...

    async def get(self, tenant: str, job_id: str) -> IngestionJob | None: ...

    async def list_jobs(
        self, tenant: str, knowledge_base_id: str, *, size: int, after: KeyCursor | None = None
    ) -> Page[IngestionJob, KeyCursor]: ...

    async def content(self, tenant: str, job_id: str) -> bytes | None: ...

    async def waiting(self, tenant: str) -> int:
        """The tenant's background jobs not ended yet (their content is stored)."""
        ...

    async def claim(self, owner: str, now: datetime, until: datetime) -> IngestionJob | None:
        """The oldest unowned QUEUED job, now RUNNING for `owner` (None: there is none)."""
        ...

    async def start(
        self, job: IngestionJob, owner: str, now: datetime, until: datetime
    ) -> IngestionJob | None:
        """A QUEUED job `owner` holds, now RUNNING (None: it lost it)."""
        ...

    async def progress(
        self, job: IngestionJob, done: int, total: int, until: datetime
    ) -> JobCheck: ...

    async def succeed(
        self, job: IngestionJob, chunks: int, now: datetime
    ) -> tuple[JobCheck, list[DocumentRecord]]: ...

    async def fail(self, job: IngestionJob, reason: str, error: str, now: datetime) -> bool:
        """FAILED, unless another process owns it now (False)."""
        ...

    async def release(self, job: IngestionJob, *, uncount: bool = False) -> bool:
        """Back to QUEUED and unowned: re-run after its process died, or handed on by a
        process shutting down (`uncount`: its attempt is not counted)."""
        ...

    async def renew(self, owner: str, until: datetime) -> int: ...

    async def expired(self, now: datetime, *, limit: int, owner: str = "") -> list[IngestionJob]:
        """Active jobs whose lease lapsed, and (`owner`) those of a previous life of this
        process, whatever their lease."""
        ...

    async def take_over(
        self, job: IngestionJob, owner: str, until: datetime
    ) -> IngestionJob | None:
        """An expired job (as `expired` listed it), now held by `owner` (None: another
        process took it first)."""
        ...


class InMemoryIngestionJobs:
    """Jobs in process, beside an in-process catalog (whose documents `succeed` turns)."""

    def __init__(self, catalog: InMemoryKnowledgeCatalog) -> None:
        self._catalog = catalog
        self._jobs = catalog.jobs
        self._content = catalog.job_contents

    def _held(self, job: IngestionJob) -> IngestionJob | None:
        found = self._jobs.get((job.tenant, job.job_id))
        if found is None or found.owner != job.owner or found.state != "RUNNING":
            return None
        return found

    def _end(self, job: IngestionJob, **changes: object) -> None:
        key = (job.tenant, job.job_id)
        self._jobs[key] = replace(self._jobs[key], **changes)  # type: ignore[arg-type]
        self._content.pop(key, None)

    async def add(self, job: IngestionJob, content: bytes | None) -> None:
        self._jobs[(job.tenant, job.job_id)] = job
        if content is not None:
            self._content[(job.tenant, job.job_id)] = content

    async def get(self, tenant: str, job_id: str) -> IngestionJob | None:
        return self._jobs.get((tenant, job_id))

    async def list_jobs(
        self, tenant: str, knowledge_base_id: str, *, size: int, after: KeyCursor | None = None
    ) -> Page[IngestionJob, KeyCursor]:
        start = id_after(after)
        found = [
            j
            for (t, i), j in self._jobs.items()
            if t == tenant and j.knowledge_base_id == knowledge_base_id and i > start
        ]
        found.sort(key=lambda j: j.job_id)
        return Page.cut(found, size, lambda j: id_cursor(j.job_id))

    async def content(self, tenant: str, job_id: str) -> bytes | None:
        return self._content.get((tenant, job_id))

    async def waiting(self, tenant: str) -> int:
        return sum(
            1
            for (t, _), j in self._jobs.items()
            if t == tenant and j.background and j.state in ACTIVE
        )

    async def claim(self, owner: str, now: datetime, until: datetime) -> IngestionJob | None:
        queued = [
            j
            for key, j in self._jobs.items()
            if j.state == "QUEUED" and not j.owner and key in self._content
        ]
        if not queued:
            return None
        first = min(queued, key=lambda j: j.job_id)
        return await self.start(first, owner, now, until, claimed=True)

    async def start(
        self,
        job: IngestionJob,
        owner: str,
        now: datetime,
        until: datetime,
        *,
        claimed: bool = False,
    ) -> IngestionJob | None:
        found = self._jobs.get((job.tenant, job.job_id))
        if found is None or found.state != "QUEUED" or found.owner != ("" if claimed else owner):
            return None
        running = replace(
            found,
            state="RUNNING",
            owner=owner,
            lease_until=until,
            started_at=now,
            attempts=found.attempts + 1,
            chunks_done=0,
        )
        self._jobs[(job.tenant, job.job_id)] = running
        return running

    async def progress(self, job: IngestionJob, done: int, total: int, until: datetime) -> JobCheck:
        held = self._held(job)
        if held is None:
            return self._why_not(job)
        key = (job.tenant, job.job_id)
        self._jobs[key] = replace(held, chunks_done=done, chunks_total=total, lease_until=until)
        document = self._catalog._documents.get((job.tenant, job.document_id))
        if document is None or document.state != "INGESTING":
            return JobCheck(False, why="its document or knowledge base was deleted meanwhile")
        return JobCheck(True)

    def _why_not(self, job: IngestionJob) -> JobCheck:
        found = self._jobs.get((job.tenant, job.job_id))
        if found is not None and found.owner != job.owner:
            return JobCheck(False, lost=True)
        return JobCheck(False, why="the job was ended meanwhile")

    async def succeed(
        self, job: IngestionJob, chunks: int, now: datetime
    ) -> tuple[JobCheck, list[DocumentRecord]]:
        if self._held(job) is None:
            return self._why_not(job), []
        documents = self._catalog._documents
        mine = documents.get((job.tenant, job.document_id))
        if mine is None or mine.state != "INGESTING":
            return JobCheck(False, why="its document or knowledge base was deleted meanwhile"), []
        replaced = [
            d
            for d in documents.values()
            if job.external_id
            and d.tenant == job.tenant
            and d.knowledge_base_id == job.knowledge_base_id
            and d.external_id == job.external_id
            and d.state == "READY"
        ]
        for old in replaced:
            documents[(old.tenant, old.document_id)] = replace(old, state="DELETING")
        documents[(job.tenant, job.document_id)] = replace(mine, state="READY", chunks=chunks)
        self._end(job, state="SUCCEEDED", chunks_done=chunks, chunks_total=chunks, finished_at=now)
        return JobCheck(True), replaced

    async def fail(self, job: IngestionJob, reason: str, error: str, now: datetime) -> bool:
        found = self._jobs.get((job.tenant, job.job_id))
        if found is None or found.owner != job.owner or found.state in ENDED:
            return False
        self._end(job, state="FAILED", error_reason=reason, error=error, finished_at=now)
        return True

    async def release(self, job: IngestionJob, *, uncount: bool = False) -> bool:
        if self._held(job) is None:
            return False
        key = (job.tenant, job.job_id)
        held = self._jobs[key]
        self._jobs[key] = replace(
            held, state="QUEUED", owner="", lease_until=None, attempts=held.attempts - uncount
        )
        return True

    async def renew(self, owner: str, until: datetime) -> int:
        mine = [k for k, j in self._jobs.items() if j.owner == owner and j.state in ACTIVE]
        for key in mine:
            self._jobs[key] = replace(self._jobs[key], lease_until=until)
        return len(mine)

    async def expired(self, now: datetime, *, limit: int, owner: str = "") -> list[IngestionJob]:
        found = [
            j
            for j in self._jobs.values()
            if j.state in ACTIVE
            and j.owner
            and ((j.lease_until is not None and j.lease_until < now) or j.owner == owner)
        ]
        return sorted(found, key=lambda j: j.job_id)[:limit]

    async def take_over(
        self, job: IngestionJob, owner: str, until: datetime
    ) -> IngestionJob | None:
        key = (job.tenant, job.job_id)
        found = self._jobs.get(key)
        if found is None or (found.owner, found.state, found.lease_until) != (
            job.owner,
            job.state,
            job.lease_until,
        ):
            return None
        self._jobs[key] = replace(found, owner=owner, lease_until=until)
        return self._jobs[key]


def jobs_for(catalog: KnowledgeCatalog) -> IngestionJobStore:
    """The job store beside `catalog` (in its process, or in its database)."""
    if isinstance(catalog, SqlKnowledgeCatalog):
        from stores.knowledge.sql_jobs import SqlIngestionJobs

        return SqlIngestionJobs(catalog.engine)
    if isinstance(catalog, InMemoryKnowledgeCatalog):
        return InMemoryIngestionJobs(catalog)
    raise TypeError(f"no ingestion job store for {type(catalog).__name__}")
