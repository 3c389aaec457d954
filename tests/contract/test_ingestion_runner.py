"""Ingestion jobs run by the runner, in process and on SQLite (catalog, jobs and chunks
in one database): progress with its total; a failure leaves no chunk and no document;
at most `parallel` jobs run, the others wait QUEUED; a job whose process died is re-run
from its stored content (or FAILED when it cannot be); an upsert is seen whole, old or
new, never both and never neither."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from agent.knowledge.bases import KnowledgeAdmin
from agent.knowledge.documents import KnowledgeBases
from agent.knowledge.ingestion import IngestionRunner
from agent.llm.embeddings import HashEmbedder
from core.errors import EmbeddingsUnavailableError, ResourceExhaustedError
from core.identity import Principal
from records.knowledge.items import DocumentRecord, Scope, Vectors
from records.knowledge.jobs import IngestionJob
from stores.knowledge.base import KnowledgeStore
from stores.knowledge.catalog import InMemoryKnowledgeCatalog, KnowledgeCatalog, SqlKnowledgeCatalog
from stores.knowledge.memory import InMemoryKnowledgeStore
from stores.knowledge.sqlite import SqliteKnowledgeStore
from stores.sql.engine import create_engine, migrate

ADMIN = Principal("ops", "acme", ("admin",))
WORDS = " ".join(f"word{n}" for n in range(100)).encode()  # 10 chunks of 10 words
OLD = b"The returns window is thirty days for every product bought online."
NEW = b"Refunds are paid to the original card within five business days."


class Gated(HashEmbedder):
    """Embeds `free` batches at once, then waits for `gate` before each; or fails."""

    def __init__(self, free: int = 0, fail: bool = False) -> None:
        super().__init__(64)
        self.free, self.fail = free, fail
        self.gate = asyncio.Event()
        self.calls = 0
        self.waiting = asyncio.Event()

    async def embed(self, texts: Sequence[str]) -> Vectors:
        self.calls += 1
        if self.calls > self.free:
            self.waiting.set()
            await asyncio.wait_for(self.gate.wait(), 20)
            if self.fail:
                raise EmbeddingsUnavailableError("HTTP 503 from the embeddings endpoint")
        return await super().embed(texts)


@dataclass
class Setup:
    store: KnowledgeStore
    catalog: KnowledgeCatalog
    admin: KnowledgeAdmin

    def runner(self, owner: str = "replica-1", **options: object) -> IngestionRunner:
        settings: dict[str, object] = {"parallel": 1, "lease_seconds": 3.0, "poll_seconds": 0.05}
        return IngestionRunner(
            self.admin.runner.jobs,
            self.catalog,
            self.admin.knowledge,
            owner=owner,
            **{**settings, **options},  # type: ignore[arg-type]
        )

    def use(self, runner: IngestionRunner) -> IngestionRunner:
        self.admin.runner = runner
        runner.start()
        return runner

    async def chunks(self) -> int:
        return await self.store.count(Scope("acme", "chunk"))

    async def until(self, job_id: str, *states: str, seconds: float = 20) -> IngestionJob:
        for _ in range(int(seconds / 0.02)):
            found = await self.admin.job(ADMIN, job_id)
            if found.state in states:
                return found
            await asyncio.sleep(0.02)
        raise AssertionError(f"job {job_id} never reached {states}: {found}")


@pytest.fixture(params=["memory", "sqlite"])
async def setup(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Setup]:
    engine = None
    if request.param == "memory":
        store: KnowledgeStore = InMemoryKnowledgeStore()
        catalog: KnowledgeCatalog = InMemoryKnowledgeCatalog()
    else:
        url = f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}"
        await migrate(url)
        engine = create_engine(url)
        store, catalog = SqliteKnowledgeStore(engine), SqlKnowledgeCatalog(engine)
    knowledge = KnowledgeBases(
        store,
        HashEmbedder(64),
        chunk_tokens=10,
        overlap=0,
        threshold=0.2,
        ready=catalog.ready_documents,
    )
    admin = KnowledgeAdmin(catalog, knowledge)
    await admin.create(ADMIN, "kb", "")
    made = Setup(store, catalog, admin)
    try:
        yield made
    finally:
        await made.admin.runner.close()
        if engine is not None:
            await engine.dispose()


async def test_a_background_job_reports_progress_and_is_searched_only_once_ready(
    setup: Setup,
) -> None:
    setup.use(setup.runner())
    embedder = setup.admin.knowledge.embedder = Gated(free=1)
    import agent.knowledge.documents as documents

    documents_batch = documents.BATCH
    documents.BATCH = 4  # three batches of 4, 4 and 2 chunks
    try:
        added = await setup.admin.add_document(
            ADMIN, "kb", WORDS, "text/plain", "w.txt", background=True
        )
        assert (added.state, added.chunks) == ("INGESTING", 0)
        await asyncio.wait_for(embedder.waiting.wait(), 10)
        embedder.free = 10**6  # the search below embeds its question freely
        running = await setup.until(added.job_id, "RUNNING")
        assert (running.chunks_done, running.chunks_total, running.attempts) == (4, 10, 1)
        assert await setup.chunks() == 4  # stored, but its document is not READY:
        assert not (await setup.admin.search(ADMIN, "kb", "word1 word2 word3", threshold=-1)).hits
        embedder.gate.set()
        done = await setup.until(added.job_id, "SUCCEEDED")
    finally:
        documents.BATCH = documents_batch
    assert (done.chunks_done, done.chunks_total) == (10, 10)
    assert done.started_at is not None
    assert done.finished_at is not None
    assert (await setup.admin.search(ADMIN, "kb", "word1 word2 word3", threshold=-1)).hits
    [document] = (await setup.admin.list_documents(ADMIN, "kb", size=9)).items
    assert (document.state, document.chunks, document.job_id) == ("READY", 10, added.job_id)


@pytest.mark.parametrize("background", [True, False])
async def test_a_failed_ingestion_leaves_no_chunk_and_no_document(
    setup: Setup, background: bool
) -> None:
    setup.use(setup.runner())
    embedder = setup.admin.knowledge.embedder = Gated(free=1, fail=True)
    embedder.gate.set()
    import agent.knowledge.documents as documents

    batch, documents.BATCH = documents.BATCH, 4
    try:
        if background:
            added = await setup.admin.add_document(
                ADMIN, "kb", WORDS, "text/plain", "w.txt", background=True
            )
            failed = await setup.until(added.job_id, "FAILED")
        else:
            with pytest.raises(EmbeddingsUnavailableError):
                await setup.admin.add_document(ADMIN, "kb", WORDS, "text/plain", "w.txt")
            [failed] = (await setup.admin.list_jobs(ADMIN, "kb", size=9)).items
    finally:
        documents.BATCH = batch
    assert failed.state == "FAILED"
    assert failed.error_reason == "EMBEDDINGS_UNAVAILABLE"
    assert "HTTP 503" in failed.error
    assert await setup.chunks() == 0
    assert (await setup.admin.list_documents(ADMIN, "kb", size=9)).items == ()


async def test_at_most_parallel_jobs_run_and_the_others_wait_queued(setup: Setup) -> None:
    setup.use(setup.runner(parallel=1))
    embedder = setup.admin.knowledge.embedder = Gated(free=0)
    first = await setup.admin.add_document(ADMIN, "kb", OLD, "text/plain", "a", background=True)
    second = await setup.admin.add_document(ADMIN, "kb", NEW, "text/plain", "b", background=True)
    await asyncio.wait_for(embedder.waiting.wait(), 10)
    await setup.until(first.job_id, "RUNNING")
    await asyncio.sleep(0.3)  # several ticks of the runner
    assert (await setup.admin.job(ADMIN, second.job_id)).state == "QUEUED"
    embedder.gate.set()
    await setup.until(first.job_id, "SUCCEEDED")
    await setup.until(second.job_id, "SUCCEEDED")


async def _dead_owner_s_job(setup: Setup, background: bool, attempts: int) -> IngestionJob:
    """A job as a process that died with it left it: two chunks stored, its lease lapsed
    (a background job RUNNING, `attempts` times; a call's job as the call held it)."""
    jobs = setup.admin.runner.jobs
    lapsed = datetime.now(UTC) - timedelta(seconds=1)
    running: IngestionJob | None = None
    if background:
        added = await setup.admin.add_document(
            ADMIN, "kb", WORDS, "text/plain", "w.txt", background=True
        )
        for n in range(attempts):  # earlier lives died too
            running = await jobs.claim("dead-replica", lapsed - timedelta(seconds=30), lapsed)
            assert running is not None
            assert running.job_id == added.job_id
            if n < attempts - 1:
                await jobs.release(running)
    else:
        document = DocumentRecord(
            "acme",
            "doc_call",
            "kb",
            "w.txt",
            "text/plain",
            9,
            0,
            lapsed,
            "INGESTING",
            "",
            "ing_call",
        )
        await setup.catalog.add_document(document)
        running = IngestionJob(
            "acme", "ing_call", "kb", "doc_call", "w.txt", "text/plain", 9, lapsed,
            owner="dead-replica", lease_until=lapsed,
        )  # fmt: skip
        await jobs.add(running, None)
    assert running is not None
    knowledge = setup.admin.knowledge
    await knowledge._store("acme", "kb", running.document_id, ["word0 word1", "word2"], 0)
    assert await setup.chunks() == 2
    return running


async def test_a_running_job_whose_process_died_is_run_again_from_its_content(
    setup: Setup,
) -> None:
    orphan = await _dead_owner_s_job(setup, background=True, attempts=1)
    setup.use(setup.runner(owner="replica-2"))
    done = await setup.until(orphan.job_id, "SUCCEEDED")
    assert (done.attempts, done.chunks_done, done.owner) == (2, 10, "replica-2")
    assert await setup.chunks() == 10  # the dead run's two chunks went first


@pytest.mark.parametrize("background", [True, False])
async def test_a_job_interrupted_too_often_or_with_nobody_waiting_is_failed_clean(
    setup: Setup, background: bool
) -> None:
    orphan = await _dead_owner_s_job(setup, background=background, attempts=3)
    setup.use(setup.runner(owner="replica-2", attempts=3))
    failed = await setup.until(orphan.job_id, "FAILED")
    assert failed.error_reason == "SHUTTING_DOWN"
    assert "dead-replica" in failed.error
    assert ("3 times" if background else "AddDocument call") in failed.error
    assert await setup.chunks() == 0
    assert (await setup.admin.list_documents(ADMIN, "kb", size=9)).items == ()


async def test_a_replaced_document_is_seen_whole_old_or_new(setup: Setup) -> None:
    setup.use(setup.runner())
    first = await setup.admin.add_document(
        ADMIN, "kb", OLD, "text/plain", "policy.txt", external_id="policy"
    )
    assert (first.state, first.external_id) == ("READY", "policy")
    embedder = setup.admin.knowledge.embedder = Gated(free=0)
    second = await setup.admin.add_document(
        ADMIN, "kb", NEW, "text/plain", "policy.txt", external_id="policy", background=True
    )
    await asyncio.wait_for(embedder.waiting.wait(), 10)
    embedder.free = 10**6  # the searches below embed their questions freely

    async def seen() -> set[str]:
        hits = await setup.admin.search(ADMIN, "kb", "refunds returns window card", threshold=-1)
        return {h.item.document_id for h in hits.hits}

    assert await seen() == {first.document_id}
    embedder.gate.set()
    observed = []
    deadline = asyncio.get_running_loop().time() + 20
    while asyncio.get_running_loop().time() < deadline:  # searches while the swap happens
        observed.append(await seen())
        job = await setup.admin.job(ADMIN, second.job_id)
        if job.state == "SUCCEEDED" and observed[-1] == {second.document_id}:
            break
        # Bounded by time, not by a count of searches: on the in-process store a search
        # is so quick that 500 of them could end before the ingestion's worker threads did.
        await asyncio.sleep(0.001)
    assert all(len(s) == 1 for s in observed), observed
    assert observed[-1] == {second.document_id}
    [listed] = (await setup.admin.list_documents(ADMIN, "kb", size=9)).items
    assert (listed.document_id, listed.external_id) == (second.document_id, "policy")
    for _ in range(100):
        if await setup.store.count(Scope("acme", "chunk", document_id=first.document_id)) == 0:
            break
        await asyncio.sleep(0.02)
    assert await setup.store.count(Scope("acme", "chunk", document_id=first.document_id)) == 0


async def test_a_document_deleted_while_ingested_ends_its_job(setup: Setup) -> None:
    setup.use(setup.runner())
    embedder = setup.admin.knowledge.embedder = Gated(free=0)
    import agent.knowledge.documents as documents

    batch, documents.BATCH = documents.BATCH, 4
    try:
        added = await setup.admin.add_document(
            ADMIN, "kb", WORDS, "text/plain", "w.txt", background=True
        )
        await asyncio.wait_for(embedder.waiting.wait(), 10)
        await setup.admin.delete_document(ADMIN, added.document_id)
        embedder.gate.set()
        failed = await setup.until(added.job_id, "FAILED")
    finally:
        documents.BATCH = batch
    assert failed.error_reason == "MEMORY_NOT_FOUND"
    assert "deleted while it was ingested" in failed.error
    assert await setup.chunks() == 0


async def test_a_restarted_process_with_a_stable_id_takes_its_jobs_back_at_once(
    setup: Setup,
) -> None:
    jobs = setup.admin.runner.jobs
    added = await setup.admin.add_document(
        ADMIN, "kb", WORDS, "text/plain", "w.txt", background=True
    )
    now = datetime.now(UTC)
    held = await jobs.claim("replica-1", now, now + timedelta(hours=1))  # a long lease
    assert held is not None
    assert held.job_id == added.job_id
    setup.use(setup.runner(owner="replica-2"))
    await asyncio.sleep(0.3)  # another process leaves it: the lease has not lapsed
    assert (await setup.admin.job(ADMIN, added.job_id)).state == "RUNNING"
    await setup.admin.runner.close()
    setup.use(setup.runner(owner="replica-1", reclaim_own=True))  # its own next life
    done = await setup.until(added.job_id, "SUCCEEDED")
    assert (done.attempts, done.owner) == (2, "replica-1")


async def test_a_process_shutting_down_hands_its_running_jobs_back(setup: Setup) -> None:
    setup.use(setup.runner())
    embedder = setup.admin.knowledge.embedder = Gated(free=0)
    added = await setup.admin.add_document(
        ADMIN, "kb", WORDS, "text/plain", "w.txt", background=True
    )
    await asyncio.wait_for(embedder.waiting.wait(), 10)
    await setup.admin.runner.close()
    handed = await setup.admin.job(ADMIN, added.job_id)
    assert (handed.state, handed.owner, handed.attempts) == ("QUEUED", "", 0)
    assert await setup.chunks() == 0
    embedder.gate.set()
    setup.use(setup.runner(owner="replica-2"))
    done = await setup.until(added.job_id, "SUCCEEDED")
    assert (done.attempts, done.chunks_done) == (1, 10)


async def test_a_tenant_s_waiting_background_jobs_are_bounded(setup: Setup) -> None:
    setup.use(setup.runner(max_waiting=1))
    embedder = setup.admin.knowledge.embedder = Gated(free=0)
    first = await setup.admin.add_document(ADMIN, "kb", OLD, "text/plain", "a", background=True)
    with pytest.raises(ResourceExhaustedError, match="MAX_WAITING"):
        await setup.admin.add_document(ADMIN, "kb", NEW, "text/plain", "b", background=True)
    assert [
        d.document_id for d in (await setup.admin.list_documents(ADMIN, "kb", size=9)).items
    ] == [first.document_id]
    embedder.gate.set()
    await setup.until(first.job_id, "SUCCEEDED")
    again = await setup.admin.add_document(ADMIN, "kb", NEW, "text/plain", "b", background=True)
    await setup.until(again.job_id, "SUCCEEDED")
