"""The pilot's trap: a knowledge base first used with the wrong embedding size (the
endpoint's vectors are not AGENTD_EMBEDDING_DIMENSIONS long), then, after a restart with
the right size, works without `agentd memory reindex`: a failed add fixes no embedding
space. On SQLite and on PostgreSQL with pgvector; and `agentd memory reindex` fails when
the endpoint cannot be reached instead of "re-embedding 0 items"."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import grpc
import pytest

from agentd.v1 import memory_pb2 as mpb
from agentd.v1 import memory_pb2_grpc as mpb_grpc
from server.commands.cli import main
from stores.sql.engine import migrate
from tests.contract.test_knowledge_bases import MARKDOWN
from tests.integration.test_knowledge_rpcs import keys
from tests.integration.trust import Trust, trusted
from tests.pgvector_server import pgvector_database

SERVED = 256
"""The size of the vectors the (fake) embeddings endpoint answers."""


@asynccontextmanager
async def database(tmp_path: Path, backend: str, socket_folder: str) -> AsyncIterator[str]:
    if backend == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}"
        return
    async with pgvector_database(socket_folder) as url:
        await migrate(url)
        yield url


@asynccontextmanager
async def knowledge(tmp_path: Path, url: str, dimensions: int) -> AsyncIterator[Trust]:
    """A server configured with `dimensions`, whose endpoint answers SERVED."""
    settings: dict[str, Any] = {
        "database_url": url,
        "embedding_model": "fake-embedding",
        "embedding_dimensions": dimensions,
        "embedding_max_attempts": 1,
        "knowledge_score_threshold": 0.1,
    }
    async with trusted(tmp_path, **settings) as t:
        t.llm.embeddings.dimensions = SERVED
        yield t


def add(name: str) -> mpb.AddDocumentRequest:
    return mpb.AddDocumentRequest(
        knowledge_base_id="policies", name=name, media_type="text/markdown", content=MARKDOWN
    )


@pytest.mark.parametrize("backend", ["sqlite", "pgvector"])
async def test_a_wrong_size_first_then_the_right_one_works_without_a_reindex(
    tmp_path: Path, backend: str, pgvector_socket: str
) -> None:
    async with database(tmp_path, backend, pgvector_socket) as url:
        async with knowledge(tmp_path, url, 1536) as t:  # the default; the endpoint's is 256
            md = await keys(t)
            stub = mpb_grpc.MemoryServiceStub(t.running.channel)
            await stub.CreateKnowledgeBase(
                mpb.CreateKnowledgeBaseRequest(knowledge_base_id="policies"), metadata=md["admin"]
            )
            with pytest.raises(grpc.aio.AioRpcError) as refused:
                await stub.AddDocument(add("returns.md"), metadata=md["admin"])
            assert refused.value.code() == grpc.StatusCode.UNAVAILABLE
            assert "AGENTD_EMBEDDING_DIMENSIONS=256" in (refused.value.details() or "")

        async with knowledge(tmp_path, url, SERVED) as t:  # restarted with the right size
            md = await keys(t)
            stub = mpb_grpc.MemoryServiceStub(t.running.channel)
            added = await stub.AddDocument(add("returns.md"), metadata=md["admin"])
            assert added.chunk_count >= 1
            found = await stub.SearchKnowledge(
                mpb.SearchKnowledgeRequest(
                    knowledge_base_id="policies", query="How long do refunds take?"
                ),
                metadata=md["member"],
            )
            assert [h.citation.document_id for h in found.hits][:1] == [added.document_id]


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_reindex_fails_when_the_endpoint_cannot_be_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}"
    for name, value in {
        "AGENTD_DATABASE_URL": url,
        "AGENTD_EMBEDDING_MODEL": "fake-embedding",
        "AGENTD_EMBEDDING_BASE_URL": f"http://127.0.0.1:{_closed_port()}/v1",
        "AGENTD_EMBEDDING_MAX_ATTEMPTS": "1",
    }.items():
        monkeypatch.setenv(name, value)
    assert await asyncio.to_thread(main, ["memory", "reindex"]) == 1
    printed = capsys.readouterr()
    assert "re-embedded" not in printed.out
    assert "agentd memory: nothing was re-embedded: embeddings are unavailable" in printed.err
    assert await asyncio.to_thread(main, ["memory", "status"]) == 0
    assert "vectors of: nothing yet" in capsys.readouterr().out  # it recorded nothing
