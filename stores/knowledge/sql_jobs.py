"""Ingestion jobs in the server's database (SQLite or PostgreSQL; migration 0016), beside
the knowledge base catalog: the contract is `stores.knowledge.jobs`'s."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from sqlalchemy import (
    and_,
    func,
    or_,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from records.knowledge.items import DocumentRecord
from records.knowledge.jobs import IngestionJob, JobCheck
from records.paging import KeyCursor, Page, id_after, id_cursor
from stores.knowledge.catalog import bases, document_row, documents, jobs
from stores.sql.times import aware

_J = jobs.c
_D = documents.c
FIELDS = [c for c in jobs.columns if c.name != "content"]
DELETED = "its document or knowledge base was deleted meanwhile"


class _Refused(Exception):  # noqa: N818 - a signal that rolls a transaction back
    def __init__(self, check: JobCheck) -> None:
        self.check = check


def _optional(value: datetime | None) -> datetime | None:
    return None if value is None else aware(value)


def _job(row: Any) -> IngestionJob:
    return IngestionJob(
        row.tenant,
        row.job_id,
        row.knowledge_base_id,
        row.document_id,
        row.name,
        row.media_type,
        row.size_bytes,
        aware(row.created_at),
        row.external_id,
        row.state,
        row.background,
        row.chunks_done,
        row.chunks_total,
        row.attempts,
        row.owner,
        _optional(row.lease_until),
        _optional(row.started_at),
        _optional(row.finished_at),
        row.error_reason,
        row.error,
    )


def _key(job: IngestionJob) -> Any:
    return and_(_J.tenant == job.tenant, _J.job_id == job.job_id)


def _held(job: IngestionJob) -> Any:
    return and_(_key(job), _J.owner == job.owner, _J.state == "RUNNING")


class SqlIngestionJobs:
    def __init__(self, engine: AsyncEngine) -> None:
        self.engine = engine

    async def add(self, job: IngestionJob, content: bytes | None) -> None:
        row = {c.name: getattr(job, c.name) for c in FIELDS if c.name != "tenant"}
        async with self.engine.begin() as connection:
            await connection.execute(
                jobs.insert().values(tenant=job.tenant, content=content, **row)
            )

    async def get(self, tenant: str, job_id: str) -> IngestionJob | None:
        query = select(*FIELDS).where(_J.tenant == tenant, _J.job_id == job_id)
        async with self.engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return None if row is None else _job(row)

    async def list_jobs(
        self, tenant: str, knowledge_base_id: str, *, size: int, after: KeyCursor | None = None
    ) -> Page[IngestionJob, KeyCursor]:
        query = (
            select(*FIELDS)
            .where(
                _J.tenant == tenant,
                _J.knowledge_base_id == knowledge_base_id,
                _J.job_id > id_after(after),
            )
            .order_by(_J.job_id)
            .limit(size + 1)
        )
        async with self.engine.connect() as connection:
            found = [_job(r) for r in await connection.execute(query)]
        return Page.cut(found, size, lambda j: id_cursor(j.job_id))

    async def content(self, tenant: str, job_id: str) -> bytes | None:
        query = select(_J.content).where(_J.tenant == tenant, _J.job_id == job_id)
        async with self.engine.connect() as connection:
            found: bytes | None = await connection.scalar(query)
        return found

    async def waiting(self, tenant: str) -> int:
        query = select(func.count()).where(
            _J.tenant == tenant, _J.background.is_(True), _J.state.in_(("QUEUED", "RUNNING"))
        )
        async with self.engine.connect() as connection:
            return int(await connection.scalar(query) or 0)

    async def claim(self, owner: str, now: datetime, until: datetime) -> IngestionJob | None:
        query = (
            select(*FIELDS)
            .where(_J.state == "QUEUED", _J.owner == "", _J.content.is_not(None))
            .order_by(_J.created_at, _J.job_id)
            .limit(4)
        )
        async with self.engine.connect() as connection:
            rows = list(await connection.execute(query))
        for row in rows:  # compare and set: another process may take it in between
            started = await self.start(replace(_job(row), owner=""), owner, now, until)
            if started is not None:
                return started
        return None

    async def start(
        self, job: IngestionJob, owner: str, now: datetime, until: datetime
    ) -> IngestionJob | None:
        statement = (
            update(jobs)
            .where(_key(job), _J.state == "QUEUED", _J.owner == job.owner)
            .values(
                state="RUNNING",
                owner=owner,
                lease_until=until,
                started_at=now,
                attempts=_J.attempts + 1,
                chunks_done=0,
            )
        )
        async with self.engine.begin() as connection:
            if not (await connection.execute(statement)).rowcount:
                return None
        return await self.get(job.tenant, job.job_id)

    async def _why_not(self, connection: AsyncConnection, job: IngestionJob) -> JobCheck:
        owner = await connection.scalar(select(_J.owner).where(_key(job)))
        if owner is not None and owner != job.owner:
            return JobCheck(False, lost=True)
        return JobCheck(False, why="the job was ended meanwhile")

    async def progress(self, job: IngestionJob, done: int, total: int, until: datetime) -> JobCheck:
        statement = (
            update(jobs)
            .where(_held(job))
            .values(chunks_done=done, chunks_total=total, lease_until=until)
        )
        async with self.engine.begin() as connection:
            if not (await connection.execute(statement)).rowcount:
                return await self._why_not(connection, job)
            state = await connection.scalar(
                select(_D.state).where(_D.tenant == job.tenant, _D.document_id == job.document_id)
            )
        return JobCheck(True) if state == "INGESTING" else JobCheck(False, why=DELETED)

    async def succeed(
        self, job: IngestionJob, chunks: int, now: datetime
    ) -> tuple[JobCheck, list[DocumentRecord]]:
        try:
            async with self.engine.begin() as connection:
                replaced = await self._swap(connection, job, chunks, now)
        except _Refused as refused:
            return refused.check, []
        return JobCheck(True), replaced

    async def _swap(
        self, connection: AsyncConnection, job: IngestionJob, chunks: int, now: datetime
    ) -> list[DocumentRecord]:
        """The job SUCCEEDED, its document READY, the one it replaces DELETING; _Refused
        (the transaction rolled back) when the job or the document is no longer its."""
        # one swap at a time per knowledge base (PostgreSQL; SQLite writes one at a time)
        base = and_(
            bases.c.tenant == job.tenant, bases.c.knowledge_base_id == job.knowledge_base_id
        )
        await connection.execute(select(bases.c.tenant).where(base).with_for_update())
        mine = and_(
            _D.tenant == job.tenant, _D.document_id == job.document_id, _D.state == "INGESTING"
        )
        made = await connection.execute(
            update(documents).where(mine).values(state="READY", chunks=chunks)
        )
        if not made.rowcount:
            raise _Refused(JobCheck(False, why=DELETED))
        ended = await connection.execute(
            update(jobs)
            .where(_held(job))
            .values(
                state="SUCCEEDED",
                chunks_done=chunks,
                chunks_total=chunks,
                finished_at=now,
                content=None,
            )
        )
        if not ended.rowcount:
            raise _Refused(await self._why_not(connection, job))
        if not job.external_id:
            return []
        same = and_(
            _D.tenant == job.tenant,
            _D.knowledge_base_id == job.knowledge_base_id,
            _D.external_id == job.external_id,
            _D.state == "READY",
            _D.document_id != job.document_id,
        )
        replaced = [
            document_row(r) for r in await connection.execute(select(documents).where(same))
        ]
        await connection.execute(update(documents).where(same).values(state="DELETING"))
        return replaced

    async def fail(self, job: IngestionJob, reason: str, error: str, now: datetime) -> bool:
        statement = (
            update(jobs)
            .where(_key(job), _J.owner == job.owner, _J.state.in_(("QUEUED", "RUNNING")))
            .values(state="FAILED", error_reason=reason, error=error, finished_at=now, content=None)
        )
        async with self.engine.begin() as connection:
            return bool((await connection.execute(statement)).rowcount)

    async def release(self, job: IngestionJob, *, uncount: bool = False) -> bool:
        statement = (
            update(jobs)
            .where(_held(job))
            .values(state="QUEUED", owner="", lease_until=None, attempts=_J.attempts - int(uncount))
        )
        async with self.engine.begin() as connection:
            return bool((await connection.execute(statement)).rowcount)

    async def renew(self, owner: str, until: datetime) -> int:
        statement = (
            update(jobs)
            .where(_J.owner == owner, _J.state.in_(("QUEUED", "RUNNING")))
            .values(lease_until=until)
        )
        async with self.engine.begin() as connection:
            return int((await connection.execute(statement)).rowcount)

    async def expired(self, now: datetime, *, limit: int, owner: str = "") -> list[IngestionJob]:
        lapsed = or_(_J.lease_until < now, _J.owner == owner) if owner else _J.lease_until < now
        query = (
            select(*FIELDS)
            .where(_J.state.in_(("QUEUED", "RUNNING")), _J.owner != "", lapsed)
            .order_by(_J.job_id)
            .limit(limit)
        )
        async with self.engine.connect() as connection:
            return [_job(r) for r in await connection.execute(query)]

    async def take_over(
        self, job: IngestionJob, owner: str, until: datetime
    ) -> IngestionJob | None:
        lease = (
            _J.lease_until.is_(None)
            if job.lease_until is None
            else _J.lease_until == job.lease_until
        )
        same = and_(_key(job), _J.owner == job.owner, _J.state == job.state, lease)
        statement = update(jobs).where(same).values(owner=owner, lease_until=until)
        async with self.engine.begin() as connection:
            if not (await connection.execute(statement)).rowcount:
                return None
        return await self.get(job.tenant, job.job_id)
