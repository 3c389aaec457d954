"""An ingestion job outlives the process running it: `agentd serve` is killed with
SIGKILL in the middle of a background ingestion (its lease unrenewed, its chunks half
stored); a new process on the same database takes the job over once the lease lapsed,
deletes the dead run's chunks, runs it again from its stored content, and the document
ends READY with each chunk once."""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import numpy as np
from aiohttp import web
from sqlalchemy import text

from agentd.v1 import memory_pb2 as mpb
from agentd.v1 import memory_pb2_grpc as mpb_grpc
from stores.sql.engine import create_engine
from tests.helpers import server_process

JOB = mpb.IngestionJobState
DIMENSIONS = 64


@asynccontextmanager
async def gated_embeddings(free: int) -> AsyncIterator[tuple[str, asyncio.Event]]:
    """An embeddings endpoint that answers `free` requests, then holds every further one
    until the event is set."""
    gate = asyncio.Event()
    served = 0

    async def handle(request: web.Request) -> web.Response:
        nonlocal served
        texts = (await request.json())["input"]
        served += 1
        if served > free:
            await asyncio.wait_for(gate.wait(), 60)
        data = []
        for i, piece in enumerate(texts):
            row = np.zeros(DIMENSIONS, np.float32)
            row[zlib.crc32(piece.encode()) % DIMENSIONS] = 1.0
            data.append({"object": "embedding", "index": i, "embedding": row.tolist()})
        usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
        return web.json_response({"object": "list", "data": data, "usage": usage})

    app = web.Application()
    app.router.add_post("/v1/embeddings", handle)
    runner = web.AppRunner(app, access_log=None, handler_cancellation=True)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        yield f"http://127.0.0.1:{runner.addresses[0][1]}/v1", gate
    finally:
        gate.set()
        await runner.cleanup()


def settings(url: str) -> dict[str, str]:
    return {
        "AGENTD_EMBEDDING_MODEL": "fake-embedding",
        "AGENTD_EMBEDDING_BASE_URL": url,
        "AGENTD_EMBEDDING_API_KEY": "k",
        "AGENTD_EMBEDDING_DIMENSIONS": str(DIMENSIONS),
        "AGENTD_EMBEDDING_BATCH_SIZE": "64",
        "AGENTD_EMBEDDING_TIMEOUT_SECONDS": "120",
        "AGENTD_KNOWLEDGE_CHUNK_TOKENS": "20",
        "AGENTD_KNOWLEDGE_CHUNK_OVERLAP": "0",
        "AGENTD_KNOWLEDGE_INGESTION_LEASE_SECONDS": "2",
        "AGENTD_ANONYMOUS_ROLES": "admin",
    }


async def job_of(stub: Any, job_id: str) -> mpb.IngestionJob:
    found: mpb.IngestionJob = await stub.GetIngestionJob(mpb.GetIngestionJobRequest(job_id=job_id))
    return found


async def test_a_job_of_a_killed_process_is_run_again_by_the_next_one(tmp_path: Path) -> None:
    words = " ".join(f"word{n}" for n in range(12_000)).encode()  # 600 chunks: 3 batches
    async with gated_embeddings(free=4) as (url, gate):  # 4 requests: the first batch
        with server_process(tmp_path, settings(url)) as first:
            async with grpc.aio.insecure_channel(first.address) as channel:
                stub = mpb_grpc.MemoryServiceStub(channel)
                await stub.CreateKnowledgeBase(
                    mpb.CreateKnowledgeBaseRequest(knowledge_base_id="kb")
                )
                added = await stub.AddDocument(
                    mpb.AddDocumentRequest(
                        knowledge_base_id="kb",
                        media_type="text/plain",
                        content=words,
                        background=True,
                    )
                )
                for _ in range(600):
                    job = await job_of(stub, added.ingestion_job_id)
                    if job.chunks_done == 256:
                        break
                    await asyncio.sleep(0.05)
                assert (job.state, job.chunks_done, job.chunks_total) == (
                    JOB.INGESTION_JOB_STATE_RUNNING,
                    256,
                    600,
                )
            first.process.kill()  # SIGKILL: no drain, no release, no last write
            assert first.wait(10) == -9
        gate.set()
        with server_process(
            tmp_path / "second",
            {
                **settings(url),
                "AGENTD_DATABASE_URL": f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}",
            },
        ) as second:
            async with grpc.aio.insecure_channel(second.address) as channel:
                stub = mpb_grpc.MemoryServiceStub(channel)
                for _ in range(600):  # the lease (2 s) lapses, then the job runs again
                    job = await job_of(stub, added.ingestion_job_id)
                    if job.state in (
                        JOB.INGESTION_JOB_STATE_SUCCEEDED,
                        JOB.INGESTION_JOB_STATE_FAILED,
                    ):
                        break
                    await asyncio.sleep(0.05)
                assert job.state == JOB.INGESTION_JOB_STATE_SUCCEEDED, job.error
                assert (job.attempts, job.chunks_done) == (2, 600)
                listed = await stub.ListDocuments(mpb.ListDocumentsRequest(knowledge_base_id="kb"))
                assert [(d.document_id, d.chunk_count, d.state) for d in listed.documents] == [
                    (added.document_id, 600, mpb.DocumentState.DOCUMENT_STATE_READY)
                ]
    engine = create_engine(f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}")
    try:
        async with engine.connect() as connection:
            stored = await connection.execute(
                text(
                    "SELECT count(*), count(DISTINCT chunk_index) FROM knowledge_items "
                    "WHERE kind = 'chunk'"
                )
            )
            assert tuple(stored.one()) == (600, 600)  # each chunk once: the dead run's went
    finally:
        await engine.dispose()
