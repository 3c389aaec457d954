"""KnowledgeStore on SQLite: vectors as float32 BLOBs, exact cosine with numpy over the
scope's vectors (held in a bounded cache while no write happened: the space row counts
writes), keywords with FTS5. Fine for up to some hundred thousand items per scope."""

from __future__ import annotations

import asyncio
import functools
from collections import OrderedDict
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

import numpy as np
from sqlalchemy import (
    Select,
    String,
    bindparam,
    column,
    func,
    literal,
    literal_column,
    select,
    table,
    text,
    true,
    union_all,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine
from sqlalchemy.sql.elements import ColumnClause

from core.errors import EmbeddingModelChangedError
from records.knowledge.items import EmbeddingSpace, Hit, Item, Scope, Vectors
from records.paging import KeyCursor, Page
from stores.knowledge.base import fuse, plain
from stores.knowledge.keywords import KEYWORD_POOL, keyword_text, query_terms
from stores.knowledge.sql import (
    Shape,
    SqlItems,
    columns,
    dedupe,
    item_of,
    named_where,
    row_of,
    scope_parameters,
    shape_of,
    where,
)
from stores.knowledge.tables import SPACE_ROW, space, sqlite_items

MAX_CACHED_ROWS = 500_000
"""Vectors the caches hold at most, over all scopes (about 3 GB at 1,536 dimensions is
far more than a SQLite deployment should ever see; the oldest scope goes first)."""

PRODUCT_THREADS = 4
"""Threads a store computes matrix products on (numpy lets go of the GIL meanwhile)."""

_fts = table("knowledge_items_fts", column("item_id"))
_FTS: ColumnClause[Any] = literal_column("knowledge_items_fts")


def fts_query(terms: Sequence[str], joiner: str) -> str:
    """The terms quoted, joined by OR or AND: FTS5 syntax never comes from the caller."""
    return f" {joiner} ".join('"' + w.replace('"', "") + '"' for w in terms)


@functools.lru_cache(maxsize=256)
def _keyword_statement(shape: Shape, tiers: int, wanted: int) -> Select[Any]:
    """The space row (the store's state) and, for each of `tiers` tiers, the scope's best
    `wanted` keyword matches with their tier and BM25 rank (lower is better): tier 0
    those holding every term (`match_0`), tier 1 those holding any (`match_1`), each
    ranked among at most KEYWORD_POOL of its matches. However the tiers overlap, they
    hold `wanted` distinct items when the scope has them. Built once per scope shape
    (building it took about 1 ms a search), executed with `scope_parameters`."""
    ranked = []
    for tier in range(tiers):
        pool = (
            select(_fts.c.item_id, func.bm25(_FTS).label("rank"))
            .join_from(_fts, sqlite_items, _fts.c.item_id == sqlite_items.c.item_id)
            .where(
                _FTS.op("MATCH")(bindparam(f"match_{tier}", type_=String)),
                named_where(shape, sqlite_items),
            )
            .limit(KEYWORD_POOL)
            .subquery()
        )
        best = select(pool, literal(tier).label("tier"))
        ranked.append(select(best.order_by(pool.c.rank, pool.c.item_id).limit(wanted).subquery()))
    matches = union_all(*ranked).subquery("matches")
    return (
        select(space, matches.c.item_id, matches.c.rank, matches.c.tier)
        .select_from(space.outerjoin(matches, true()))
        .where(space.c.id == SPACE_ROW)
    )


async def _space_and_keywords(
    connection: AsyncConnection, scope: Scope, terms: list[str], wanted: int
) -> tuple[Any, list[str]]:
    """In one statement (each statement is several hops to aiosqlite's thread): the space
    row (None: no space yet) and the scope's best keyword matches of `terms`, best first
    (`_keyword_statement`)."""
    if not terms:
        return (await connection.execute(select(space).where(space.c.id == SPACE_ROW))).first(), []
    tiers = 2 if len(terms) > 1 else 1
    params = {"match_0": fts_query(terms, "AND"), "match_1": fts_query(terms, "OR")}
    rows = (
        await connection.execute(
            _keyword_statement(shape_of(scope), tiers, wanted),
            {**params, **scope_parameters(scope)},
        )
    ).all()
    if not rows:
        return None, []
    ranked = sorted(
        (r for r in rows if r.item_id is not None), key=lambda r: (r.tier, r.rank, r.item_id)
    )
    return rows[0], list(dict.fromkeys(r.item_id for r in ranked))[:wanted]


def similarities(matrix: Vectors, vector: Vectors) -> Vectors:
    """Each row's dot product with `vector` (cosine: both are unit length), in one pass
    over the matrix on this thread. Not `matrix @ vector`: OpenBLAS splits a
    matrix-vector product over its threads and waits for the slowest, and on a busy
    machine (or a server answering many searches at once) one of them is often waiting
    for a core: its median at 10,000 x 1,536 was 11-16 ms there against 3-6 ms for this,
    while on an idle machine they take about 2 and 3 ms."""
    query = np.asarray(vector, np.float32).reshape(-1)
    found: Vectors = np.einsum("ij,j->i", matrix, query)
    return found


def _matrix(rows: Sequence[Any], dimensions: int) -> Vectors:
    """The rows' vectors as one C-contiguous float32 matrix (a search is then a single
    matrix-vector product); a vector of other dimensions (mid re-index) is zeros."""
    size = dimensions * 4
    blobs = [
        r.embedding if r.embedding is not None and len(r.embedding) == size else None for r in rows
    ]
    if all(b is not None for b in blobs):
        joined = b"".join(b for b in blobs if b is not None)
        return (
            np.frombuffer(joined, "<f4")
            .astype(np.float32, copy=False)
            .reshape(len(rows), dimensions)
        )
    matrix = np.zeros((len(rows), dimensions), np.float32)
    for n, blob in enumerate(blobs):
        if blob is not None:
            matrix[n] = np.frombuffer(blob, "<f4")
    return matrix


def _scores(matrix: Vectors, vector: Vectors) -> Vectors | None:
    """`similarities`, or None where they cannot be (a query of other dimensions: the
    search computes them again and fails there)."""
    try:
        return similarities(matrix, vector)
    except ValueError:
        return None


def _key(scope: Scope) -> tuple[object, ...]:
    """The cache key of a scope (its items by id are a filter over the cached rows)."""
    return (scope.tenant, scope.kind, scope.user, scope.namespaces, scope.document_id)


@dataclass(slots=True)
class _Cached:
    generation: int
    items: list[Item]
    positions: dict[str, int]
    matrix: Vectors


class SqliteKnowledgeStore:
    def __init__(self, engine: AsyncEngine) -> None:
        self._sql = SqlItems(engine, sqlite_items)
        self._engine = engine
        self._cache: OrderedDict[tuple[object, ...], _Cached] = OrderedDict()
        self._write = asyncio.Lock()
        self._threads: ThreadPoolExecutor | None = None

    async def space(self) -> EmbeddingSpace | None:
        return await self._sql.space()

    async def check_space(self, wanted: EmbeddingSpace) -> None:
        await self._sql.check_space(wanted)

    async def set_space(self, wanted: EmbeddingSpace) -> None:
        async with self._write, self._engine.begin() as connection:
            await self._sql.write_space(connection, wanted)
            await self._sql.bump(connection)
        self._cache.clear()

    async def add(
        self, items: Sequence[Item], vectors: Vectors, space: EmbeddingSpace
    ) -> list[Item]:
        if len(items) != len(vectors):
            raise ValueError("one vector per item")
        if not items:
            return []
        async with self._write, self._engine.begin() as connection:
            await self._sql.claim_space(connection, space)  # undone with the transaction
            stored = await self._sql.duplicates(connection, items)
            result, insert = dedupe(items, stored)
            if insert:
                await connection.execute(
                    sqlite_items.insert(),
                    [
                        {**row_of(items[n]), "embedding": np.asarray(vectors[n], "<f4").tobytes()}
                        for n in insert
                    ],
                )
                await connection.execute(
                    text(
                        "INSERT INTO knowledge_items_fts (text, item_id, tenant) "
                        "VALUES (:text, :item_id, :tenant)"
                    ),
                    [
                        {
                            "text": keyword_text(items[n].text),
                            "item_id": items[n].item_id,
                            "tenant": items[n].tenant,
                        }
                        for n in insert
                    ],
                )
                await self._sql.bump(connection)
        return result

    async def _load(
        self, connection: AsyncConnection, scope: Scope, row: Any
    ) -> tuple[_Cached, EmbeddingSpace | None]:
        """The scope's cached items and vectors (read again if the store's generation in
        the space row `row` is not the cache's), and the store's space."""
        key = _key(scope)
        held = EmbeddingSpace(row.model, row.dimensions) if row is not None else None
        generation = row.generation if row is not None else 0
        cached = self._cache.get(key)
        if cached is not None and cached.generation == generation:
            self._cache.move_to_end(key)
            return cached, held
        unscoped = Scope(scope.tenant, scope.kind, scope.user, scope.namespaces, scope.document_id)
        rows = (
            await connection.execute(
                select(*columns(sqlite_items), sqlite_items.c.embedding)
                .where(where(unscoped, sqlite_items))
                .order_by(sqlite_items.c.item_id)
            )
        ).all()
        dimensions = held.dimensions if held is not None else 0
        found = [item_of(r) for r in rows]
        cached = _Cached(
            generation,
            found,
            {i.item_id: n for n, i in enumerate(found)},
            _matrix(rows, dimensions),
        )
        self._cache[key] = cached
        while sum(len(c.items) for c in self._cache.values()) > MAX_CACHED_ROWS:
            self._cache.popitem(last=False)
        return cached, held

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
        terms = query_terms(query_text)
        wanted = max(top_k * 4, top_k)
        guess = self._cache.get(_key(scope))
        early = (  # the product while the keyword statement runs (numpy lets go of the GIL)
            asyncio.get_running_loop().run_in_executor(
                self._products(), _scores, guess.matrix, vector
            )
            if guess is not None and terms
            else None  # by vector alone the statement is short: a thread would only add
        )
        async with self._engine.connect() as connection:
            row, keyword_ids = await _space_and_keywords(connection, scope, terms, wanted)
            cached, held = await self._load(connection, scope, row)
        scores = await early if early is not None else None
        if held is not None and held != space:
            if cached.items or await self._holds_items():
                raise EmbeddingModelChangedError(str(held), str(space))
            return []  # a space recorded while nothing is stored binds nothing
        if not cached.items:
            return []
        if scores is None or cached is not guess:  # the cache was stale: read again
            scores = similarities(cached.matrix, vector)
        if scope.item_ids:
            allowed = np.zeros(len(cached.items), bool)
            for item_id in scope.item_ids:
                if item_id in cached.positions:
                    allowed[cached.positions[item_id]] = True
            scores = np.where(allowed, scores, -2.0)
        nearest = min(len(scores), wanted)
        best = np.argpartition(-scores, nearest - 1)[:nearest]
        best = best[np.argsort(-scores[best], kind="stable")]
        by_vector = [(cached.items[n], float(scores[n])) for n in best if scores[n] > -2.0]
        if not terms:
            return plain(by_vector, top_k, threshold)
        by_keyword = [
            cached.items[cached.positions[i]] for i in keyword_ids if i in cached.positions
        ]
        by_keyword = [i for i in by_keyword if scores[cached.positions[i.item_id]] > -2.0]
        similarity = {i.item_id: float(scores[cached.positions[i.item_id]]) for i in by_keyword}
        return fuse(by_vector, by_keyword, similarity, top_k, threshold)

    async def _holds_items(self) -> bool:
        async with self._engine.connect() as connection:
            return await self._sql.holds_items(connection)

    async def page(
        self, scope: Scope, *, size: int = 100, after: KeyCursor | None = None
    ) -> Page[Item, KeyCursor]:
        return await self._sql.page(scope, size=size, after=after)

    async def count(self, scope: Scope) -> int:
        return await self._sql.count(scope)

    async def delete(self, scope: Scope) -> int:
        async with self._write, self._engine.begin() as connection:
            ids = await self._sql.ids(connection, scope)
            for start in range(0, len(ids), 500):
                await connection.execute(
                    text("DELETE FROM knowledge_items_fts WHERE item_id IN :ids").bindparams(
                        bindparam("ids", expanding=True)
                    ),
                    {"ids": ids[start : start + 500]},
                )
            gone = await self._sql.delete_rows(connection, scope)
            await self._sql.bump(connection)
        for key in [k for k in self._cache if k[0] == scope.tenant]:
            del self._cache[key]  # nothing of what went stays in this process
        return gone

    async def scan(self, *, after: str = "", limit: int = 500) -> list[Item]:
        return await self._sql.scan(after=after, limit=limit)

    async def set_vectors(self, item_ids: Sequence[str], vectors: Vectors) -> None:
        async with self._write, self._engine.begin() as connection:
            for item_id, vector in zip(item_ids, vectors, strict=True):
                await connection.execute(
                    update(sqlite_items)
                    .where(sqlite_items.c.item_id == item_id)
                    .values(embedding=np.asarray(vector, "<f4").tobytes())
                )
            await self._sql.bump(connection)
        self._cache.clear()

    def _products(self) -> ThreadPoolExecutor:
        """The store's own threads for matrix products (not the loop's default executor:
        a search must not queue behind other work's threads)."""
        if self._threads is None:
            self._threads = ThreadPoolExecutor(PRODUCT_THREADS, "knowledge-search")
        return self._threads

    async def close(self) -> None:
        self._cache.clear()
        if self._threads is not None:
            self._threads.shutdown(wait=False)
            self._threads = None
