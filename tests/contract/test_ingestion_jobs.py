"""The ingestion job store on every backend (in process, SQLite, PostgreSQL): one
tenant's jobs only; a QUEUED job claimed by one process only; a running job's changes
refused once another process took it over; the swap of an upserted document in one step;
lapsed leases found and taken over by one process only."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from records.knowledge.items import DocumentRecord, DocumentState, KnowledgeBaseRecord
from records.knowledge.jobs import IngestionJob, new_job_id
from records.paging import KeyCursor
from stores.knowledge.catalog import InMemoryKnowledgeCatalog, KnowledgeCatalog, SqlKnowledgeCatalog
from stores.knowledge.jobs import IngestionJobStore, jobs_for
from stores.sql.engine import create_engine, migrate
from tests.paging import every_page, page_sizes
from tests.pgvector_server import pgvector_database

NOW = datetime(2026, 11, 27, 3, 0, tzinfo=UTC)
LATER = NOW + timedelta(seconds=30)


@pytest.fixture(params=["memory", "sqlite", "postgresql"])
async def stores(
    request: pytest.FixtureRequest, tmp_path: Path, pgvector_socket: str
) -> AsyncIterator[tuple[KnowledgeCatalog, IngestionJobStore]]:
    if request.param == "memory":
        catalog = InMemoryKnowledgeCatalog()
        yield catalog, jobs_for(catalog)
        return
    if request.param == "sqlite":
        url = f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}"
        await migrate(url)
        engine = create_engine(url)
        try:
            sql = SqlKnowledgeCatalog(engine)
            yield sql, jobs_for(sql)
        finally:
            await engine.dispose()
        return
    async with pgvector_database(pgvector_socket) as url:
        await migrate(url)
        engine = create_engine(url)
        try:
            sql = SqlKnowledgeCatalog(engine)
            yield sql, jobs_for(sql)
        finally:
            await engine.dispose()


def job(tenant: str = "acme", document_id: str = "doc_1", external_id: str = "") -> IngestionJob:
    return IngestionJob(
        tenant, new_job_id(), "kb", document_id, "a.md", "text/markdown", 10, NOW, external_id
    )


def document(
    document_id: str, state: DocumentState = "INGESTING", external_id: str = ""
) -> DocumentRecord:
    return DocumentRecord(
        "acme",
        document_id,
        "kb",
        "a.md",
        "text/markdown",
        10,
        0,
        NOW,
        state,
        external_id,
    )


async def test_jobs_are_one_tenant_s_and_listed_by_id(
    stores: tuple[KnowledgeCatalog, IngestionJobStore],
) -> None:
    _, jobs = stores
    first, second, theirs = job(), job(document_id="doc_2"), job("globex")
    for made in (first, second, theirs):
        await jobs.add(made, b"content")
    assert await jobs.get("acme", first.job_id) == first
    assert await jobs.get("globex", first.job_id) is None
    assert await jobs.get("acme", theirs.job_id) is None
    listed = await jobs.list_jobs("acme", "kb", size=1)
    assert [j.job_id for j in listed.items] == [first.job_id]
    assert listed.next == KeyCursor(0, first.job_id)
    rest = await jobs.list_jobs("acme", "kb", size=9, after=listed.next)
    assert ([j.job_id for j in rest.items], rest.next) == ([second.job_id], None)
    assert await jobs.content("acme", first.job_id) == b"content"
    assert await jobs.waiting("acme") == 0  # none of them is a background job
    await jobs.add(replace(job(), background=True), b"content")
    assert (await jobs.waiting("acme"), await jobs.waiting("globex")) == (1, 0)
    assert await jobs.content("globex", first.job_id) is None


@pytest.mark.parametrize("size", [1, 4, 9, 10])
async def test_every_page_of_jobs_is_read_once(
    stores: tuple[KnowledgeCatalog, IngestionJobStore], size: int
) -> None:
    _, jobs = stores
    made = [replace(job(), job_id=f"ing_{n:02d}") for n in range(9)]
    for one in reversed(made):  # stored out of order: listed by id
        await jobs.add(one, None)
    await jobs.add(replace(job("globex"), job_id="ing_50"), None)
    await jobs.add(replace(job(), job_id="ing_51", knowledge_base_id="faq"), None)

    pages = await every_page(lambda after: jobs.list_jobs("acme", "kb", size=size, after=after))
    assert [len(p) for p in pages] == page_sizes(9, size)
    assert [j.job_id for p in pages for j in p] == [j.job_id for j in made]


async def test_a_queued_job_is_claimed_by_one_process_only(
    stores: tuple[KnowledgeCatalog, IngestionJobStore],
) -> None:
    _, jobs = stores
    queued = replace(job(), background=True)
    await jobs.add(queued, b"content")
    await jobs.add(replace(job(document_id="doc_2"), owner="caller"), None)  # a call's own
    claims = await asyncio.gather(*(jobs.claim(f"p{n}", NOW, LATER) for n in range(4)))
    won = [c for c in claims if c is not None]
    assert len(won) == 1
    assert (won[0].job_id, won[0].state, won[0].attempts) == (queued.job_id, "RUNNING", 1)
    assert won[0].started_at == NOW
    assert await jobs.claim("p9", NOW, LATER) is None


async def test_a_job_taken_over_refuses_its_old_owner(
    stores: tuple[KnowledgeCatalog, IngestionJobStore],
) -> None:
    catalog, jobs = stores
    await catalog.create_base(KnowledgeBaseRecord("acme", "kb", "", NOW))
    await catalog.add_document(document("doc_1"))
    await jobs.add(replace(job(), background=True), b"content")
    mine = await jobs.claim("a", NOW, LATER)
    assert mine is not None
    assert (await jobs.progress(mine, 5, 9, LATER)).go_on
    assert (await jobs.get("acme", mine.job_id)).chunks_done == 5  # type: ignore[union-attr]
    assert await jobs.expired(NOW, limit=9) == []
    lapsed = await jobs.expired(LATER + timedelta(seconds=1), limit=9)
    assert [j.job_id for j in lapsed] == [mine.job_id]
    takers = await asyncio.gather(
        jobs.take_over(lapsed[0], "b", LATER + timedelta(minutes=1)),
        jobs.take_over(lapsed[0], "c", LATER + timedelta(minutes=1)),
    )
    assert sum(t is not None for t in takers) == 1
    check = await jobs.progress(mine, 6, 9, LATER)
    assert (check.go_on, check.lost) == (False, True)
    assert not await jobs.fail(mine, "INTERNAL", "x", NOW)
    taker = next(t for t in takers if t is not None)
    assert await jobs.release(taker)
    requeued = await jobs.get("acme", mine.job_id)
    assert requeued is not None
    assert (requeued.state, requeued.owner, requeued.attempts) == ("QUEUED", "", 1)
    again = await jobs.claim("d", NOW, LATER)
    assert again is not None
    assert again.attempts == 2
    assert await jobs.release(again, uncount=True)
    assert (await jobs.get("acme", mine.job_id)).attempts == 1  # type: ignore[union-attr]


async def test_a_held_job_of_a_previous_life_is_found_whatever_its_lease(
    stores: tuple[KnowledgeCatalog, IngestionJobStore],
) -> None:
    _, jobs = stores
    held = replace(job(), owner="replica-1", lease_until=LATER)
    await jobs.add(held, None)
    assert await jobs.expired(NOW, limit=9) == []
    assert [j.job_id for j in await jobs.expired(NOW, limit=9, owner="replica-1")] == [held.job_id]


async def test_success_swaps_the_document_of_the_same_external_id_in_one_step(
    stores: tuple[KnowledgeCatalog, IngestionJobStore],
) -> None:
    catalog, jobs = stores
    await catalog.create_base(KnowledgeBaseRecord("acme", "kb", "", NOW))
    await catalog.add_document(document("doc_1", "READY", "handbook"))
    await catalog.add_document(document("doc_2", "INGESTING", "handbook"))
    new = replace(job(document_id="doc_2", external_id="handbook"), background=True)
    await jobs.add(new, b"content")
    running = await jobs.claim("a", NOW, LATER)
    assert running is not None
    assert await catalog.ready_documents("acme", ["doc_1", "doc_2"]) == {"doc_1"}
    check, replaced = await jobs.succeed(running, 7, LATER)
    assert check.go_on
    assert [d.document_id for d in replaced] == ["doc_1"]
    assert await catalog.ready_documents("acme", ["doc_1", "doc_2"]) == {"doc_2"}
    assert [d.document_id for d in (await catalog.list_documents("acme", "kb", size=9)).items] == [
        "doc_2"
    ]
    assert [d.document_id for d in await catalog.deleting_documents(limit=9)] == ["doc_1"]
    ended = await jobs.get("acme", new.job_id)
    assert ended is not None
    assert (ended.state, ended.chunks_done, ended.finished_at) == ("SUCCEEDED", 7, LATER)
    assert await jobs.content("acme", new.job_id) is None


async def test_success_is_refused_when_the_document_was_deleted_meanwhile(
    stores: tuple[KnowledgeCatalog, IngestionJobStore],
) -> None:
    catalog, jobs = stores
    await catalog.create_base(KnowledgeBaseRecord("acme", "kb", "", NOW))
    await catalog.add_document(document("doc_1"))
    await jobs.add(replace(job(), background=True), b"content")
    running = await jobs.claim("a", NOW, LATER)
    assert running is not None
    await catalog.set_document_state("acme", "doc_1", "DELETING")
    assert not (await jobs.progress(running, 1, 2, LATER)).go_on
    check, replaced = await jobs.succeed(running, 2, LATER)
    assert (check.go_on, check.lost, replaced) == (False, False, [])
    still = await jobs.get("acme", running.job_id)
    assert still is not None
    assert still.state == "RUNNING"
    assert await jobs.fail(running, "MEMORY_NOT_FOUND", "deleted", LATER)
    failed = await jobs.get("acme", running.job_id)
    assert failed is not None
    assert (failed.state, failed.error_reason, failed.error) == (
        "FAILED",
        "MEMORY_NOT_FOUND",
        "deleted",
    )


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
async def test_migration_0016_keeps_documents_ready_and_goes_down_and_up(
    kind: str, tmp_path: Path
) -> None:
    from alembic import command
    from sqlalchemy import inspect, text

    from stores.sql.engine import alembic_config
    from tests.contract.conftest import empty_database

    async with empty_database(kind, tmp_path) as (url, schema):
        config = alembic_config(url, schema)
        await asyncio.to_thread(command.upgrade, config, "0015")
        engine = create_engine(url, schema=schema)
        try:
            async with engine.begin() as connection:
                await connection.execute(
                    text(
                        "INSERT INTO knowledge_documents (tenant, document_id, knowledge_base_id,"
                        " name, media_type, size_bytes, chunks, created_at) VALUES ('acme',"
                        " 'doc_1', 'kb', 'a.md', 'text/markdown', 10, 2, :now)"
                    ),
                    {"now": NOW},
                )
            await asyncio.to_thread(command.upgrade, config, "head")
            catalog = SqlKnowledgeCatalog(engine)
            found = await catalog.get_document("acme", "doc_1")
            assert found is not None
            assert (found.state, found.external_id, found.chunks) == ("READY", "", 2)
            assert await catalog.ready_documents("acme", ["doc_1"]) == {"doc_1"}
            await asyncio.to_thread(command.downgrade, config, "0015")

            def tables(connection: Any) -> list[str]:
                return list(inspect(connection).get_table_names())

            async with engine.connect() as connection:
                assert "knowledge_ingestion_jobs" not in await connection.run_sync(tables)
            await asyncio.to_thread(command.upgrade, config, "head")
            assert await catalog.get_document("acme", "doc_1") is not None
        finally:
            await engine.dispose()
