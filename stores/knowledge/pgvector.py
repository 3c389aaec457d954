"""KnowledgeStore on PostgreSQL with pgvector: an HNSW index (cosine) over the vectors;
for keywords, the tsvector of each item's terms (`stores.knowledge.keywords`) in
knowledge_keywords (GIN), removed with its item. Searching: `stores.knowledge.pgsearch`.

The vector column is untyped until the store's embedding space is known; recording the
space types it `vector(N)` and builds the HNSW indexes, one per item kind (partial: a
recall walks the graph of memories only, a knowledge search that of chunks only;
re-indexing drops and rebuilds them). A server whose PostgreSQL lacks the extension
has no knowledge tables at all (migration 0013): `vector_ready` says why, and memory
stays off there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy import bindparam, func, literal_column, text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.errors import EmbeddingModelChangedError
from records.knowledge.items import EmbeddingSpace, Hit, Item, Scope, Vectors
from records.paging import KeyCursor, Page
from stores.knowledge.base import fuse, plain
from stores.knowledge.keywords import keyword_text, query_terms
from stores.knowledge.pgsearch import begin, iterative_scans, pg_items, pg_keywords, search_rows
from stores.knowledge.sql import KINDS, SqlItems, dedupe, row_of

SPACE_LOCK = 7_346_231_013
"""Advisory lock taken while the space (column type, HNSW indexes) changes."""
CLAIMS = 3
"""Times an add records its space when the store holds nothing, should replicas of other
spaces record theirs in between (then it is refused)."""
OLD_INDEX = "ix_knowledge_items_embedding"
"""The one HNSW index of every kind before migration 0018."""


def hnsw_index(kind: str) -> str:
    """The CREATE INDEX statement of a kind's HNSW index (partial: that kind's rows)."""
    if kind not in KINDS:
        raise ValueError(f"no such item kind: {kind}")
    return (
        f"CREATE INDEX IF NOT EXISTS ix_knowledge_items_embedding_{kind} ON knowledge_items "
        f"USING hnsw (embedding vector_cosine_ops) WHERE kind = '{kind}'"
    )


async def drop_hnsw_indexes(connection: AsyncConnection) -> None:
    for name in (OLD_INDEX, *(f"{OLD_INDEX}_{kind}" for kind in KINDS)):
        await connection.execute(text(f"DROP INDEX IF EXISTS {name}"))


async def vector_ready(engine: AsyncEngine) -> str:
    """Why this PostgreSQL cannot hold knowledge ("" when it can)."""
    async with engine.connect() as connection:
        installed = await connection.scalar(
            text("SELECT 1 FROM pg_extension WHERE extname = 'vector'")
        )
        table = await connection.scalar(text("SELECT to_regclass('knowledge_items')"))
    if not installed:
        return "the PostgreSQL database has no `vector` extension (pgvector)"
    if table is None:
        return "the knowledge tables are missing: run `agentd migrate` after installing pgvector"
    return ""


class PgVectorKnowledgeStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self._sql = SqlItems(engine, pg_items)
        self._engine = engine
        self._iterative: bool | None = None

    async def space(self) -> EmbeddingSpace | None:
        return await self._sql.space()

    async def check_space(self, wanted: EmbeddingSpace) -> None:
        await self._sql.check_space(wanted)

    async def set_space(self, wanted: EmbeddingSpace) -> None:
        """Record the space, type the column `vector(N)` and (re)build the HNSW indexes; the
        stored vectors must be of `wanted` already (`set_vectors` of a re-index)."""
        async with self._engine.begin() as connection:
            await connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": SPACE_LOCK})
            await self._retype(connection, wanted)

    async def _retype(self, connection: AsyncConnection, wanted: EmbeddingSpace) -> None:
        await drop_hnsw_indexes(connection)
        await connection.execute(
            text(
                "ALTER TABLE knowledge_items ALTER COLUMN embedding "
                f"TYPE vector({int(wanted.dimensions)})"
            )
        )
        for kind in KINDS:
            await connection.execute(text(hnsw_index(kind)))
        await self._sql.write_space(connection, wanted)

    async def _claim(self, wanted: EmbeddingSpace) -> None:
        """Make `wanted` the store's space if it holds no item (typing the column and
        building the indexes), in a transaction of its own under the space lock: a space
        recorded while nothing is stored binds nothing, so an add that fails after this
        leaves nothing that refuses the next one."""
        async with self._engine.begin() as connection:
            await connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": SPACE_LOCK})
            held = await self._sql.recorded(connection)
            if held == wanted:
                return  # another replica got here first
            if held is not None and await self._sql.holds_items(connection):
                raise EmbeddingModelChangedError(str(held), str(wanted))
            await self._retype(connection, wanted)

    async def add(
        self, items: Sequence[Item], vectors: Vectors, space: EmbeddingSpace
    ) -> list[Item]:
        if len(items) != len(vectors):
            raise ValueError("one vector per item")
        if not items:
            return []
        held: EmbeddingSpace | None = None
        for _ in range(CLAIMS):
            async with self._engine.begin() as connection:
                # shared: no space change (exclusive) runs until this add has committed
                await connection.execute(
                    text("SELECT pg_advisory_xact_lock_shared(:k)"), {"k": SPACE_LOCK}
                )
                held = await self._sql.recorded(connection)
                if held == space:
                    return await self._insert(connection, items, vectors)
                if held is not None and await self._sql.holds_items(connection):
                    raise EmbeddingModelChangedError(str(held), str(space))
            await self._claim(space)
        raise EmbeddingModelChangedError(str(held), str(space))

    async def _insert(
        self, connection: AsyncConnection, items: Sequence[Item], vectors: Vectors
    ) -> list[Item]:
        stored = await self._sql.duplicates(connection, items)
        result, insert = dedupe(items, stored)
        if insert:
            await connection.execute(
                pg_items.insert(),
                [
                    {**row_of(items[n]), "embedding": np.asarray(vectors[n], np.float32)}
                    for n in insert
                ],
            )
            await connection.execute(
                pg_keywords.insert().values(
                    words=func.to_tsvector(literal_column("'simple'::regconfig"), bindparam("k"))
                ),
                [{"item_id": items[n].item_id, "k": keyword_text(items[n].text)} for n in insert],
            )
        return result

    async def search(
        self,
        scope: Scope,
        vector: Vectors,
        *,
        top_k: int,
        threshold: float = -1.0,
        query_text: str = "",
        space: EmbeddingSpace,
    ) -> list[Hit]:
        query_vector = np.asarray(vector, np.float32).reshape(-1)
        wanted = max(top_k * 4, top_k)
        async with self._engine.begin() as connection:
            if self._iterative is None:
                self._iterative = await iterative_scans(connection)
            held, large = await begin(connection, scope, self._iterative)
            if held is not None and held != space:
                if await self._sql.holds_items(connection):
                    raise EmbeddingModelChangedError(str(held), str(space))
                return []  # a space recorded while nothing is stored binds nothing
            if held is None:
                return []
            walk = large and self._iterative
            by_vector, keyword = await search_rows(
                connection, scope, query_vector, query_text, wanted, walk
            )
        if not query_terms(query_text):
            return plain(by_vector, top_k, threshold)
        similarity = {i.item_id: s for i, s in keyword}
        return fuse(by_vector, [i for i, _ in keyword], similarity, top_k, threshold)

    async def page(
        self, scope: Scope, *, size: int = 100, after: KeyCursor | None = None
    ) -> Page[Item, KeyCursor]:
        return await self._sql.page(scope, size=size, after=after)

    async def count(self, scope: Scope) -> int:
        return await self._sql.count(scope)

    async def delete(self, scope: Scope) -> int:
        async with self._engine.begin() as connection:
            return await self._sql.delete_rows(connection, scope)

    async def scan(self, *, after: str = "", limit: int = 500) -> list[Item]:
        return await self._sql.scan(after=after, limit=limit)

    async def set_vectors(self, item_ids: Sequence[str], vectors: Vectors) -> None:
        """New vectors (of a re-index: any dimensions; the column is untyped until
        `set_space`)."""
        async with self._engine.begin() as connection:
            await connection.execute(text("SELECT pg_advisory_xact_lock(:k)"), {"k": SPACE_LOCK})
            await drop_hnsw_indexes(connection)
            await connection.execute(
                text("ALTER TABLE knowledge_items ALTER COLUMN embedding TYPE vector")
            )
            statement = (
                pg_items.update()
                .where(pg_items.c.item_id == bindparam("b_id"))
                .values(embedding=bindparam("b_embedding"))
            )
            await connection.execute(
                statement,
                [
                    {"b_id": i, "b_embedding": np.asarray(v, np.float32)}
                    for i, v in zip(item_ids, vectors, strict=True)
                ],
            )

    async def close(self) -> None:
        return None
