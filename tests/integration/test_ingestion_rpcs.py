"""Ingestion jobs through the real server (SQLite and PostgreSQL with pgvector), the real
`openai` client calling the fake embeddings endpoint: AddDocument with `background`
answers at once and GetIngestionJob follows the job to its end; ListIngestionJobs pages;
another tenant's job is NOT_FOUND and a member may not read jobs; a document upserted by
external id is one document; an embeddings endpoint that is down or answers the wrong
dimensions fails the job with a clear reason and leaves nothing; a 20 MB document reports
its progress while it is ingested."""

from __future__ import annotations

import asyncio
import time
import zlib
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import numpy as np
import pytest
from aiohttp import web
from sqlalchemy import text

from agentd.v1 import memory_pb2 as mpb
from agentd.v1 import memory_pb2_grpc as mpb_grpc
from tests.integration.test_knowledge_rpcs import code_of, keys, knowledge_server
from tests.integration.trust import Trust

JOB = mpb.IngestionJobState
RETURNS = b"Customers may return any product within 30 days of delivery for a full refund."
REFUNDS = b"Refunds are paid to the original payment method within five business days."


async def until_ended(
    stub: Any, job_id: str, md: list[tuple[str, str]], seconds: float = 60
) -> mpb.IngestionJob:
    for _ in range(int(seconds / 0.05)):
        job = await stub.GetIngestionJob(mpb.GetIngestionJobRequest(job_id=job_id), metadata=md)
        if job.state in (JOB.INGESTION_JOB_STATE_SUCCEEDED, JOB.INGESTION_JOB_STATE_FAILED):
            return job  # type: ignore[no-any-return]
        await asyncio.sleep(0.05)
    raise AssertionError(f"job {job_id} did not end in {seconds} s")


async def counts(t: Trust) -> tuple[int, int]:
    """(chunks, document records) in the server's database."""
    async with t.server.durable.database.engine.connect() as connection:
        chunks = await connection.scalar(
            text("SELECT count(*) FROM knowledge_items WHERE kind = 'chunk'")
        )
        documents = await connection.scalar(text("SELECT count(*) FROM knowledge_documents"))
    return int(chunks or 0), int(documents or 0)


def add(content: bytes, **fields: Any) -> mpb.AddDocumentRequest:
    return mpb.AddDocumentRequest(
        knowledge_base_id="kb", media_type="text/plain", content=content, **fields
    )


@pytest.mark.parametrize("backend", ["sqlite", "pgvector"])
async def test_a_background_document_is_followed_by_its_job_by_its_tenant_s_admins(
    tmp_path: Path, backend: str, pgvector_socket: str
) -> None:
    async with knowledge_server(tmp_path, backend, pgvector_socket) as t:
        md = await keys(t)
        stub = mpb_grpc.MemoryServiceStub(t.running.channel)
        create = mpb.CreateKnowledgeBaseRequest(knowledge_base_id="kb")
        await stub.CreateKnowledgeBase(create, metadata=md["admin"])
        added = await stub.AddDocument(
            add(RETURNS, name="returns.txt", background=True, external_id="returns"),
            metadata=md["admin"],
        )
        assert added.state == mpb.DocumentState.DOCUMENT_STATE_INGESTING
        assert added.ingestion_job_id.startswith("ing_")
        assert added.external_id == "returns"
        job = await until_ended(stub, added.ingestion_job_id, md["admin"])
        assert job.state == JOB.INGESTION_JOB_STATE_SUCCEEDED, job.error
        assert (job.document_id, job.name, job.size_bytes) == (
            added.document_id,
            "returns.txt",
            len(RETURNS),
        )
        assert job.chunks_done == job.chunks_total >= 1
        assert job.background
        assert job.attempts == 1
        assert job.end_time.ToDatetime() >= job.start_time.ToDatetime()

        replaced = await stub.AddDocument(
            add(REFUNDS, name="returns.txt", external_id="returns"), metadata=md["admin"]
        )
        assert replaced.state == mpb.DocumentState.DOCUMENT_STATE_READY
        listed = await stub.ListDocuments(
            mpb.ListDocumentsRequest(knowledge_base_id="kb"), metadata=md["member"]
        )
        assert [(d.document_id, d.external_id) for d in listed.documents] == [
            (replaced.document_id, "returns")
        ]
        found = await stub.SearchKnowledge(
            mpb.SearchKnowledgeRequest(
                knowledge_base_id="kb", query="refund payment method", score_threshold=-1
            ),
            metadata=md["member"],
        )
        assert {h.citation.document_id for h in found.hits} == {replaced.document_id}

        first = await stub.ListIngestionJobs(
            mpb.ListIngestionJobsRequest(knowledge_base_id="kb", page_size=1),
            metadata=md["admin"],
        )
        rest = await stub.ListIngestionJobs(
            mpb.ListIngestionJobsRequest(
                knowledge_base_id="kb", page_size=1, page_token=first.next_page_token
            ),
            metadata=md["admin"],
        )
        assert [j.job_id for j in [*first.jobs, *rest.jobs]] == [
            added.ingestion_job_id,
            replaced.ingestion_job_id,
        ]
        assert not rest.next_page_token
        assert not rest.jobs[0].background

        get = mpb.GetIngestionJobRequest(job_id=added.ingestion_job_id)
        listing = mpb.ListIngestionJobsRequest(knowledge_base_id="kb")
        for call in (
            stub.GetIngestionJob(get, metadata=md["other"]),
            stub.ListIngestionJobs(listing, metadata=md["other"]),
            stub.GetIngestionJob(
                mpb.GetIngestionJobRequest(job_id="ing_missing"), metadata=md["admin"]
            ),
        ):
            assert await code_of(call) == grpc.StatusCode.NOT_FOUND
        for refused in (
            stub.GetIngestionJob(get, metadata=md["member"]),
            stub.ListIngestionJobs(listing, metadata=md["member"]),
            stub.AddDocument(add(RETURNS, background=True), metadata=md["member"]),
        ):
            assert await code_of(refused) == grpc.StatusCode.PERMISSION_DENIED
        assert (
            await code_of(
                stub.AddDocument(
                    add(RETURNS, background=True, external_id="x" * 257), metadata=md["admin"]
                )
            )
            == grpc.StatusCode.INVALID_ARGUMENT
        )


@pytest.mark.parametrize(
    ("failure", "said"),
    [("down", "503"), ("dimensions", "dimensions")],
)
async def test_a_failing_embeddings_endpoint_fails_the_job_and_leaves_nothing(
    tmp_path: Path, pgvector_socket: str, failure: str, said: str
) -> None:
    async with knowledge_server(tmp_path, "sqlite", pgvector_socket, embedding_max_attempts=1) as t:
        md = (await keys(t))["admin"]
        stub = mpb_grpc.MemoryServiceStub(t.running.channel)
        await stub.CreateKnowledgeBase(
            mpb.CreateKnowledgeBaseRequest(knowledge_base_id="kb"), metadata=md
        )
        await stub.AddDocument(add(RETURNS, external_id="returns"), metadata=md)
        before = await counts(t)
        if failure == "down":
            t.llm.embeddings.fail_status = 503
        else:
            t.llm.embeddings.dimensions = 128  # the server expects 256
        added = await stub.AddDocument(
            add(REFUNDS * 20, background=True, external_id="returns"), metadata=md
        )
        job = await until_ended(stub, added.ingestion_job_id, md)
        assert job.state == JOB.INGESTION_JOB_STATE_FAILED
        assert job.error_reason == "EMBEDDINGS_UNAVAILABLE"
        assert said in job.error
        assert await counts(t) == before  # the replaced document stands, nothing new
        refused = stub.AddDocument(add(REFUNDS), metadata=md)
        assert await code_of(refused) == grpc.StatusCode.UNAVAILABLE
        assert await counts(t) == before


@asynccontextmanager
async def cheap_embeddings(dimensions: int) -> AsyncIterator[str]:
    """An `/v1/embeddings` whose vectors cost nothing to make (a 20 MB document through
    the n-gram embedder would take most of a minute): a few hashed coordinates per text."""

    async def handle(request: web.Request) -> web.Response:
        texts = (await request.json())["input"]
        data = []
        for i, piece in enumerate(texts):
            row = np.zeros(dimensions, np.float32)
            row[zlib.crc32(piece.encode()) % dimensions] = 1.0
            data.append({"object": "embedding", "index": i, "embedding": row.tolist()})
        usage = {"prompt_tokens": len(texts), "total_tokens": len(texts)}
        return web.json_response({"object": "list", "data": data, "usage": usage})

    app = web.Application(client_max_size=64 * 2**20)
    app.router.add_post("/v1/embeddings", handle)
    runner = web.AppRunner(app, access_log=None)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        yield f"http://127.0.0.1:{port}/v1"
    finally:
        await runner.cleanup()


async def test_a_20_mb_document_reports_its_progress_while_it_is_ingested(
    tmp_path: Path, pgvector_socket: str
) -> None:
    sentence = (" ".join(f"topic{n % 997} lorem ipsum" for n in range(1000)) + "\n").encode()
    document = sentence * (20 * 2**20 // len(sentence))
    async with (
        cheap_embeddings(256) as url,
        knowledge_server(
            tmp_path,
            "sqlite",
            pgvector_socket,
            embedding_base_url=url,
            knowledge_chunk_tokens=1000,
            knowledge_chunk_overlap=0,
            max_message_bytes=32 * 2**20,
        ) as t,
    ):
        md = (await keys(t))["admin"]
        stub = mpb_grpc.MemoryServiceStub(t.running.channel)
        await stub.CreateKnowledgeBase(
            mpb.CreateKnowledgeBaseRequest(knowledge_base_id="kb"), metadata=md
        )
        added = await stub.AddDocument(add(document, background=True), metadata=md)
        seen: list[int] = []
        total = 0
        for _ in range(6000):  # at most 10 minutes
            job = await stub.GetIngestionJob(
                mpb.GetIngestionJobRequest(job_id=added.ingestion_job_id), metadata=md
            )
            total = job.chunks_total or total
            if job.state == JOB.INGESTION_JOB_STATE_RUNNING and job.chunks_done not in seen:
                seen.append(job.chunks_done)
            if job.state in (JOB.INGESTION_JOB_STATE_SUCCEEDED, JOB.INGESTION_JOB_STATE_FAILED):
                break
            await asyncio.sleep(0.1)
        assert job.state == JOB.INGESTION_JOB_STATE_SUCCEEDED, job.error
        assert total == job.chunks_done == len(document.split()) // 1000
        growing = [n for n in seen if 0 < n < total]
        assert len(growing) >= 2, seen  # progress seen at least twice mid-way
        assert growing == sorted(growing)
        assert job.size_bytes == len(document)


def _sync_session(address: str, api_key: str) -> list[str]:
    """The memory and knowledge methods of the synchronous client, in order."""
    from agentd_client import sync as sync_client

    seen: list[object] = []
    with sync_client.AgentClient(address, api_key=api_key, timeout=20) as client:
        client.create_knowledge_base("sync", "Sync")
        seen.append(client.list_knowledge_bases().knowledge_bases[-1].knowledge_base_id)
        added = client.add_document(
            "sync", REFUNDS, "text/plain", name="r.txt", external_id="r", background=True
        )
        for _ in range(400):
            job = client.get_ingestion_job(added.ingestion_job_id)
            if job.state == JOB.INGESTION_JOB_STATE_SUCCEEDED:
                break
            time.sleep(0.05)
        seen.append(mpb.IngestionJobState.Name(job.state))
        seen.append(client.list_ingestion_jobs("sync").jobs[0].job_id == job.job_id and "listed")
        docs = client.list_documents("sync").documents
        seen.append(docs[0].external_id)
        hits = client.search_knowledge("sync", "refund payment method", score_threshold=-1)
        seen.append(hits[0].citation.document_id == added.document_id and "found")
        seen.append(str(client.delete_document(added.document_id) >= 1))
        seen.append(str(client.delete_knowledge_base("sync")))
        seen.append(str(len(client.list_memories().memories)))
        seen.append(str(len(client.search_memories("anything"))))
        seen.append(str(client.forget_user()))
    return [str(s) for s in seen]


async def test_the_python_clients_add_and_follow_documents(
    tmp_path: Path, pgvector_socket: str
) -> None:
    async with knowledge_server(tmp_path, "sqlite", pgvector_socket) as t:
        client = await t.client("acme", "ops", "admin")
        await client.create_knowledge_base("kb")
        added = await client.add_document(
            "kb", RETURNS, "text/plain", name="returns.txt", background=True
        )
        for _ in range(400):
            job = await client.get_ingestion_job(added.ingestion_job_id)
            if job.state == JOB.INGESTION_JOB_STATE_SUCCEEDED:
                break
            await asyncio.sleep(0.05)
        assert job.state == JOB.INGESTION_JOB_STATE_SUCCEEDED
        listed = await client.list_ingestion_jobs("kb")
        assert [j.job_id for j in listed.jobs] == [added.ingestion_job_id]

        from records.keys import new_key

        key, plaintext = new_key("acme", "sync-ops", ("admin",))
        await t.server.durable.api_keys.add(key)
        seen = await asyncio.to_thread(_sync_session, t.address, plaintext)
        assert seen == [
            "sync", "INGESTION_JOB_STATE_SUCCEEDED", "listed", "r", "found", "True", "0",
            "0", "0", "0",
        ]  # fmt: skip


@pytest.mark.parametrize("backend", ["sqlite", "pgvector"])
async def test_nul_characters_are_dropped_alike_on_every_backend(
    tmp_path: Path, backend: str, pgvector_socket: str
) -> None:
    async with knowledge_server(tmp_path, backend, pgvector_socket) as t:
        md = await keys(t)
        stub = mpb_grpc.MemoryServiceStub(t.running.channel)
        create = mpb.CreateKnowledgeBaseRequest(knowledge_base_id="kb")
        await stub.CreateKnowledgeBase(create, metadata=md["admin"])
        added = await stub.AddDocument(
            add(b"The shop\x00 opens at nine\x00.", name="hours.txt"), metadata=md["admin"]
        )
        assert added.state == mpb.DocumentState.DOCUMENT_STATE_READY
        found = await stub.SearchKnowledge(
            mpb.SearchKnowledgeRequest(
                knowledge_base_id="kb", query="shop opens", score_threshold=-1
            ),
            metadata=md["member"],
        )
        assert [h.text for h in found.hits] == ["The shop opens at nine."]
        for fields in ({"name": "a\x00b"}, {"external_id": "x\x00"}):
            refused = stub.AddDocument(add(RETURNS, **fields), metadata=md["admin"])
            assert await code_of(refused) == grpc.StatusCode.INVALID_ARGUMENT
        assert await counts(t) == (1, 1)
