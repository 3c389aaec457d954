"""Migration 0017 re-tokenises the items stored before it (keyword search for Chinese,
Japanese and Korean), on SQLite and on PostgreSQL with pgvector, and goes back down."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import text

from agent.llm.embeddings import HashEmbedder
from records.knowledge.items import Scope
from stores.knowledge.base import KnowledgeStore
from stores.knowledge.pgvector import PgVectorKnowledgeStore
from stores.knowledge.sqlite import SqliteKnowledgeStore
from stores.sql.engine import alembic_config, create_engine
from tests.pgvector_server import pgvector_database

EMBED = HashEmbedder(64)
OLD = {
    "chk_zh": "北京是中华人民共和国的首都。",
    "chk_ko": "우리는 서울에서 김치찌개를 먹었습니다.",
    "chk_en": "The X200 router has a warranty of 24 months.",
}


@asynccontextmanager
async def database(kind: str, tmp_path: Path, socket: str) -> AsyncIterator[str]:
    if kind == "sqlite":
        yield f"sqlite+aiosqlite:///{tmp_path / 'old.db'}"
        return
    async with pgvector_database(socket) as url:
        yield url


async def store_old_items(url: str, kind: str) -> None:
    """Items as the stores before 0017 wrote them (raw text in the keyword index)."""
    engine = create_engine(url)
    vectors = await EMBED.embed(list(OLD.values()))
    try:
        if kind == "pgvector":
            await PgVectorKnowledgeStore(engine).set_space(EMBED.space)
        else:
            await SqliteKnowledgeStore(engine).set_space(EMBED.space)
        async with engine.begin() as connection:
            for (item_id, body), vector in zip(OLD.items(), vectors, strict=True):
                row = {
                    "id": item_id, "body": body, "at": datetime.now(UTC),
                    "vector": str(vector.tolist()) if kind == "pgvector" else vector.tobytes(),
                }  # fmt: skip
                await connection.execute(
                    text(
                        "INSERT INTO knowledge_items (item_id, tenant, kind, user_id, namespace, "
                        "document_id, chunk_index, text, content_hash, created_at, embedding) "
                        "VALUES (:id, 'acme', 'chunk', '', 'kb', :id, 0, :body, :id, :at, "
                        + ("CAST(:vector AS vector))" if kind == "pgvector" else ":vector)")
                    ),
                    row,
                )
                if kind == "sqlite":
                    await connection.execute(
                        text(
                            "INSERT INTO knowledge_items_fts (text, item_id, tenant) "
                            "VALUES (:body, :id, 'acme')"
                        ),
                        row,
                    )
    finally:
        await engine.dispose()


async def keyword_hits(store: KnowledgeStore, query: str) -> list[str]:
    vector = (await EMBED.embed([query]))[0]
    hits = await store.search(
        Scope("acme", "chunk", namespaces=("kb",)), vector, top_k=3, query_text=query,
        space=EMBED.space,
    )  # fmt: skip
    return [h.item.item_id for h in hits if "keyword" in h.matched]


@pytest.mark.parametrize("kind", ["sqlite", "pgvector"])
async def test_0017_makes_stored_cjk_text_findable_by_keyword(
    kind: str, tmp_path: Path, pgvector_socket: str
) -> None:
    async with database(kind, tmp_path, pgvector_socket) as url:
        await asyncio.to_thread(command.upgrade, alembic_config(url), "0015")
        await store_old_items(url, kind)
        await asyncio.to_thread(command.upgrade, alembic_config(url), "0017")
        engine = create_engine(url)
        try:
            store: KnowledgeStore = (
                PgVectorKnowledgeStore(engine)
                if kind == "pgvector"
                else SqliteKnowledgeStore(engine)
            )
            assert await keyword_hits(store, "中国的首都") == ["chk_zh"]
            assert await keyword_hits(store, "김치찌개") == ["chk_ko"]
            assert await keyword_hits(store, "X200 warranty") == ["chk_en"]
        finally:
            await engine.dispose()
        await asyncio.to_thread(command.downgrade, alembic_config(url), "0015")
        engine = create_engine(url)
        try:
            async with engine.connect() as connection:
                if kind == "sqlite":
                    found = await connection.scalars(text("SELECT text FROM knowledge_items_fts"))
                else:
                    found = await connection.scalars(
                        text("SELECT item_id FROM knowledge_items WHERE words @@ 'x200'")
                    )
                kept = set(found.all())
            assert kept == ({*OLD.values()} if kind == "sqlite" else {"chk_en"})
        finally:
            await engine.dispose()
