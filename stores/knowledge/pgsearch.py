"""The two rankings of a pgvector search: the nearest items of a scope, and its keyword
matches.

Nearest: a search is always filtered by its scope (tenant, kind, user, namespaces). A
scope of at most EXACT_SCOPE items is searched exactly: its rows come by the B-tree
scope index and each distance is computed (for few rows that beats walking the graph,
and it is exact). A larger scope walks the HNSW index with pgvector 0.8's iterative
index scan (`hnsw.iterative_scan`): the walk goes on past `hnsw.ef_search` candidates
until enough of them pass the scope's filter (at most MAX_SCAN_TUPLES); should it end
with fewer, the search is done exactly after all. pgvector before 0.8 has no iterative
scan: there every search is exact (correct, but its time grows with the scope). Each
item kind has its own HNSW index (partial, migration 0018): the kind is written into
the statement, so that the planner always matches it.

Keyword: the scope's items whose tsvector holds every term of the query, then those
holding any, each set ranked by ts_rank among at most KEYWORD_POOL matches (ts_rank is
computed per matching row: a term found in every row must not cost a full scan).

A search is one transaction of two statements (`begin`, then `search_rows`: the
nearest and the keyword tiers in one UNION ALL, the query vector one binary `real[]`
parameter); the round trips, not the walk, were most of a search's time. Both statements
are built once per scope shape (`_begin_statement`, `_search_statement`), their values
named parameters: SQLAlchemy then reuses the statement's cache key and compiled SQL, and
asyncpg its prepared statement (the same SQL text), instead of building them each search.
"""

from __future__ import annotations

import functools
import re
from typing import Any

import numpy as np
from pgvector.sqlalchemy import Vector
from sqlalchemy import (
    Column,
    ColumnElement,
    CompoundSelect,
    Float,
    Integer,
    MetaData,
    Select,
    String,
    Table,
    Text,
    bindparam,
    cast,
    func,
    literal,
    literal_column,
    select,
    text,
    union_all,
)
from sqlalchemy.dialects.postgresql import ARRAY, REAL, TSVECTOR
from sqlalchemy.ext.asyncio import AsyncConnection

from records.knowledge.items import EmbeddingSpace, Item, Scope, Vectors
from stores.knowledge.keywords import KEYWORD_POOL, query_terms
from stores.knowledge.sql import (
    ITEM_FIELDS,
    Shape,
    columns,
    item_of,
    named_where,
    scope_parameters,
    shape_of,
    where,
)
from stores.knowledge.tables import SPACE_ROW, _item_columns, space

EF_SEARCH = 100
"""hnsw.ef_search of a search: candidates the index walks at first (more: better
recall, slower; pgvector's default 40 missed true nearest neighbours of a filtered
scope in tests/contract/test_knowledge_pgvector.py). The iterative scan walks on as
far as the scope needs."""
MAX_SCAN_TUPLES = 20_000
"""hnsw.max_scan_tuples: how far an iterative index scan walks at most (pgvector's
default) before the search is done exactly instead."""
EXACT_SCOPE = 2_000
"""A scope of at most this many items is searched exactly, without the HNSW index."""

_metadata = MetaData()
pg_items = Table("knowledge_items", _metadata, *_item_columns(), Column("embedding", Vector()))
"""The items with their vectors."""
pg_keywords = Table(
    "knowledge_keywords",
    _metadata,
    Column("item_id", String(64), primary_key=True),
    Column("words", TSVECTOR, nullable=False),
)
"""The tsvector of each item's keyword terms (migration 0017; removed with the item)."""

Ranked = list[tuple[Item, float]]


def tsquery(terms: list[str], joiner: str) -> str:
    """The terms for to_tsquery, joined by `|` or `&`: its syntax never comes from the
    caller (terms are letters and digits only)."""
    return f" {joiner} ".join("'" + w.replace("'", "") + "'" for w in terms)


async def iterative_scans(connection: AsyncConnection) -> bool:
    """Whether the server's pgvector has iterative index scans (0.8 and later)."""
    version = await connection.scalar(
        text("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
    )
    parts = tuple(int(p) for p in re.findall(r"\d+", str(version or ""))[:2])
    return parts >= (0, 8)


async def begin(
    connection: AsyncConnection, scope: Scope, iterative: bool
) -> tuple[EmbeddingSpace | None, bool]:
    """In one round trip: the store's embedding space, whether the scope holds more than
    EXACT_SCOPE items (counted no further), and this transaction's settings: statements
    planned for their parameters (never a prepared statement's generic plan: whether the
    scope's rows or the keyword index come first depends on the scope and the terms),
    and with `iterative` the iterative index scan, sorting off (the planner then takes
    the HNSW index for the nearest, never a sort of the scope; a statement that must
    sort still sorts: the keyword tiers, the exact search)."""
    row = (
        await connection.execute(
            _begin_statement(shape_of(scope), iterative),
            {
                **scope_parameters(scope),
                "scope_limit": EXACT_SCOPE + 1,
                "ef_search": str(EF_SEARCH),
                "max_scan_tuples": str(MAX_SCAN_TUPLES),
            },
        )
    ).first()
    if row is None:
        return None, False
    small = bool(scope.item_ids) and len(scope.item_ids) <= EXACT_SCOPE
    return EmbeddingSpace(row.model, row.dimensions), not small and row.scoped > EXACT_SCOPE


@functools.lru_cache(maxsize=64)
def _begin_statement(shape: Shape, iterative: bool) -> Select[Any]:
    """`begin`'s statement for scopes of `shape`, its values named parameters (built once:
    building a statement and its cache key each search took a good part of a millisecond)."""
    settings = [func.set_config("plan_cache_mode", "force_custom_plan", True)]
    if iterative:
        settings += [
            func.set_config("hnsw.iterative_scan", "relaxed_order", True),
            func.set_config("hnsw.ef_search", bindparam("ef_search", type_=Text), True),
            func.set_config("hnsw.max_scan_tuples", bindparam("max_scan_tuples", type_=Text), True),
            func.set_config("enable_sort", "off", True),  # `search_rows`: the index's order
        ]
    some = (
        select(literal_column("1"))
        .select_from(pg_items)
        .where(named_where(shape, pg_items))
        .limit(bindparam("scope_limit", type_=Integer))
        .subquery()
    )
    scoped = select(func.count()).select_from(some).scalar_subquery()
    return select(space.c.model, space.c.dimensions, scoped.label("scoped"), *settings).where(
        space.c.id == SPACE_ROW
    )


def _floats(vector: Vectors) -> list[float]:
    """The query vector as the value of its `real[]` parameter."""
    floats: list[float] = np.asarray(vector, np.float32).reshape(-1).tolist()
    return floats


def _query_vector(vector: Vectors) -> ColumnElement[Any]:
    """The query vector as one parameter of a statement, a `real[]` (asyncpg sends it in
    binary, exact) cast to `vector` by the server. Not the column type's own conversion,
    nor pgvector's text form: formatting 1,536 floats as text took 0.4-2.5 ms a search."""
    return cast(bindparam("query_vector", _floats(vector), type_=ARRAY(REAL)), Vector())


def nearest_query(
    scope: Scope, vector: Vectors | ColumnElement[Any], wanted: int, exact: bool
) -> Select[Any]:
    """The scope's `wanted` items by distance to `vector` (or its `_query_vector`), with
    their similarity: by the HNSW index of the scope's kind (after `begin` or
    `walk_hnsw`), or `exact` by computing each distance."""
    bound = vector if isinstance(vector, ColumnElement) else _query_vector(vector)
    distance = pg_items.c.embedding.cosine_distance(bound)
    return (
        select(*columns(pg_items), (1 - distance).label("similarity"))
        .where(where(scope, pg_items, inline_kind=True))
        .order_by(distance + 0 if exact else distance)  # + 0: the index cannot give it
        .limit(wanted)
    )


async def walk_hnsw(connection: AsyncConnection, on: bool = True) -> None:
    """Set (or reset) this transaction's iterative index scan. Sorting is off with it, so
    the planner takes the HNSW index for the order, never a sort of the scope: a query
    that must sort runs before, or after `walk_hnsw(on=False)`."""
    await connection.execute(
        text(
            "SELECT set_config('hnsw.iterative_scan', :mode, true), "
            "set_config('hnsw.ef_search', :ef, true), "
            "set_config('hnsw.max_scan_tuples', :most, true), "
            "set_config('enable_sort', :sort, true)"
        ),
        {
            "mode": "relaxed_order" if on else "off",
            "ef": str(EF_SEARCH),
            "most": str(MAX_SCAN_TUPLES),
            "sort": "off" if on else "on",
        },
    )


@functools.lru_cache(maxsize=256)
def _tier(shape: Shape, parameter: str, wanted: int, tier: int) -> Select[Any]:
    """The best `wanted` by ts_rank of at most KEYWORD_POOL matches of a tsquery (built
    once per shape: building it took 1-2 ms a search)."""
    query = func.to_tsquery(literal_column("'simple'::regconfig"), bindparam(parameter, type_=Text))
    words = pg_keywords.c.words
    matched = (
        select(*columns(pg_items), pg_items.c.embedding, func.ts_rank(words, query).label("rank"))
        .join_from(pg_keywords, pg_items, pg_keywords.c.item_id == pg_items.c.item_id)
        .where(named_where(shape, pg_items), words.op("@@")(query))
        .limit(KEYWORD_POOL)
        .subquery()
    )
    best = select(matched).order_by(matched.c.rank.desc()).limit(wanted).subquery()
    vector = cast(bindparam("query_vector", type_=ARRAY(REAL)), Vector())
    return select(  # the distance of the best only (each reads a whole vector)
        *(best.c[name] for name in ITEM_FIELDS),
        (1 - best.c.embedding.cosine_distance(vector)).label("similarity"),
        literal(tier).label("tier"),
        cast(best.c.rank, Float).label("rank"),
    )


@functools.lru_cache(maxsize=256)
def _search_statement(
    shape: Shape, wanted: int, walk: bool, tiers: int
) -> Select[Any] | CompoundSelect[Any]:
    """`search_statement` for scopes of `shape` and `tiers` keyword tiers (0 to 2), its
    values named parameters (built once per shape: see `_begin_statement`)."""
    bound = cast(bindparam("query_vector", type_=ARRAY(REAL)), Vector())
    distance = pg_items.c.embedding.cosine_distance(bound)
    nearest = (
        select(*columns(pg_items), (1 - distance).label("similarity"))
        .add_columns(literal(-1).label("tier"), literal_column("0.0::float8").label("rank"))
        .where(named_where(shape, pg_items))
        .order_by(distance if walk else distance + 0)  # + 0: the index cannot give it
        .limit(wanted)
    )
    arms = [nearest, *(_tier(shape, ("every", "any")[n], wanted, n) for n in range(tiers))]
    return arms[0] if len(arms) == 1 else union_all(*arms)


def search_statement(
    scope: Scope, vector: Vectors, terms: list[str], wanted: int, walk: bool
) -> tuple[Select[Any] | CompoundSelect[Any], dict[str, Any]]:
    """`search_rows`' statement and its parameters: the nearest (tier -1; as
    `nearest_query`) and the keyword tiers (0: every term, 1: any) of `terms`, one after
    the other."""
    statement = _search_statement(shape_of(scope), wanted, walk, min(len(terms), 2))
    params = {
        "every": tsquery(terms, "&"),
        "any": tsquery(terms, "|"),
        "query_vector": _floats(vector),
    }
    return statement, {**params, **scope_parameters(scope)}


async def search_rows(
    connection: AsyncConnection,
    scope: Scope,
    vector: Vectors,
    query_text: str,
    wanted: int,
    walk: bool,
) -> tuple[Ranked, Ranked]:
    """The scope's `wanted` items nearest to `vector`, nearest first (module docstring;
    `walk`: by the HNSW index, after `begin`), and its best keyword matches of
    `query_text` (at most `wanted`, with their similarity): those holding every term
    first. One statement (one round trip, the query vector sent once); a walk that ends
    with fewer than `wanted` is done again exactly."""
    statement, params = search_statement(scope, vector, query_terms(query_text), wanted, walk)
    rows = (await connection.execute(statement, params)).all()
    near = [(item_of(r), float(r.similarity)) for r in rows if r.tier < 0]
    near.sort(key=lambda x: -x[1])  # relaxed order: the walk's may be slightly out of order
    if walk and len(near) < wanted:
        exact = await connection.execute(nearest_query(scope, vector, wanted, exact=True))
        near = [(item_of(r), float(r.similarity)) for r in exact]
    found: dict[str, tuple[Item, float]] = {}
    for row in sorted((r for r in rows if r.tier >= 0), key=lambda r: (r.tier, -r.rank)):
        found.setdefault(row.item_id, (item_of(row), float(row.similarity)))
    return near, list(found.values())[:wanted]
