"""What the SQLite and the PostgreSQL knowledge stores share: the embedding space row,
listing, counting, deleting and scanning items, and writing them in one transaction."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import (
    ColumnElement,
    String,
    Table,
    and_,
    bindparam,
    delete,
    exists,
    func,
    literal_column,
    select,
    update,
)
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from core.errors import EmbeddingModelChangedError
from records.knowledge.items import EmbeddingSpace, Item, Scope
from records.paging import KeyCursor, Page, id_after
from stores.knowledge.base import item_page
from stores.knowledge.tables import SPACE_ROW, space
from stores.sql.times import aware

ITEM_FIELDS = (
    "item_id",
    "tenant",
    "kind",
    "user_id",
    "namespace",
    "document_id",
    "chunk_index",
    "text",
    "content_hash",
    "created_at",
)


def columns(table: Table) -> list[Any]:
    """The item columns of a backend's table (without the vector)."""
    return [table.c[name] for name in ITEM_FIELDS]


KINDS = ("memory", "chunk")
"""The item kinds (`ItemKind`)."""


def where(scope: Scope, table: Table, *, inline_kind: bool = False) -> ColumnElement[bool]:
    """The SQL condition of a scope (always one tenant and one kind). `inline_kind`: the
    kind is written into the statement, not a parameter, so that the planner matches a
    partial index of that kind even in a generic plan (PostgreSQL's HNSW indexes)."""
    c = table.c
    if scope.kind not in KINDS:
        raise ValueError(f"no such item kind: {scope.kind!r}")
    kind: Any = literal_column(f"'{scope.kind}'") if inline_kind else scope.kind
    parts: list[ColumnElement[bool]] = [c.tenant == scope.tenant, c.kind == kind]
    if scope.user is not None:
        parts.append(c.user_id == scope.user)
    if scope.namespaces:
        parts.append(c.namespace.in_(scope.namespaces))
    if scope.document_id is not None:
        parts.append(c.document_id == scope.document_id)
    if scope.item_ids:
        parts.append(c.item_id.in_(scope.item_ids))
    return and_(*parts)


def scope_parameters(scope: Scope) -> dict[str, Any]:
    """The parameters of `named_where` (those its shape has no use for are ignored)."""
    return {
        "scope_tenant": scope.tenant,
        "scope_user": scope.user,
        "scope_namespaces": list(scope.namespaces),
        "scope_document": scope.document_id,
        "scope_item_ids": list(scope.item_ids),
    }


Shape = tuple[str, bool, bool, bool, bool]
"""A scope's kind and which of user, namespaces, document and item ids it names."""


def shape_of(scope: Scope) -> Shape:
    return (
        scope.kind,
        scope.user is not None,
        bool(scope.namespaces),
        scope.document_id is not None,
        bool(scope.item_ids),
    )


def named_where(shape: Shape, table: Table) -> ColumnElement[bool]:
    """`where` of a scope of this shape, its values named parameters (none has a value:
    a statement built once is executed with `scope_parameters`, and one missing fails)."""
    kind, user, namespaces, document, item_ids = shape
    if kind not in KINDS:
        raise ValueError(f"no such item kind: {kind!r}")
    c = table.c
    parts = [
        c.tenant == bindparam("scope_tenant", type_=String),
        c.kind == literal_column(f"'{kind}'"),
    ]
    if user:
        parts.append(c.user_id == bindparam("scope_user", type_=String))
    if namespaces:
        parts.append(c.namespace.in_(bindparam("scope_namespaces", expanding=True)))
    if document:
        parts.append(c.document_id == bindparam("scope_document", type_=String))
    if item_ids:
        parts.append(c.item_id.in_(bindparam("scope_item_ids", expanding=True)))
    return and_(*parts)


def item_of(row: Any) -> Item:
    return Item(
        item_id=row.item_id,
        tenant=row.tenant,
        kind=row.kind,
        user=row.user_id,
        namespace=row.namespace,
        text=row.text,
        content_hash=row.content_hash,
        created_at=aware(row.created_at),
        document_id=row.document_id,
        chunk_index=row.chunk_index,
    )


def row_of(item: Item) -> dict[str, Any]:
    return {
        "item_id": item.item_id,
        "tenant": item.tenant,
        "kind": item.kind,
        "user_id": item.user,
        "namespace": item.namespace,
        "document_id": item.document_id,
        "chunk_index": item.chunk_index,
        "text": item.text,
        "content_hash": item.content_hash,
        "created_at": item.created_at,
    }


class SqlItems:
    """The parts of a knowledge store that are plain SQL."""

    def __init__(self, engine: AsyncEngine, table: Table) -> None:
        self.engine = engine
        self.table = table

    async def space(self) -> EmbeddingSpace | None:
        async with self.engine.connect() as connection:
            return await self.held(connection)

    async def held(self, connection: AsyncConnection) -> EmbeddingSpace | None:
        """The space of the stored vectors: the one recorded, while any item is stored (a
        space recorded in a store that holds nothing binds nothing)."""
        stored = exists(select(literal_column("1")).select_from(self.table))
        row = (
            await connection.execute(
                select(space.c.model, space.c.dimensions, stored.label("stored")).where(
                    space.c.id == SPACE_ROW
                )
            )
        ).first()
        return EmbeddingSpace(row.model, row.dimensions) if row is not None and row.stored else None

    async def recorded(self, connection: AsyncConnection) -> EmbeddingSpace | None:
        """The space recorded, whether or not any item is stored."""
        row = (await connection.execute(select(space).where(space.c.id == SPACE_ROW))).first()
        return EmbeddingSpace(row.model, row.dimensions) if row is not None else None

    async def holds_items(self, connection: AsyncConnection) -> bool:
        found = await connection.scalar(
            select(literal_column("1")).select_from(self.table).limit(1)
        )
        return found is not None

    async def check_space(self, wanted: EmbeddingSpace) -> None:
        """EmbeddingModelChangedError when the stored vectors are of another space; records
        nothing (the first stored vector fixes the space: `claim_space`)."""
        held = await self.space()
        if held is not None and held != wanted:
            raise EmbeddingModelChangedError(str(held), str(wanted))

    async def claim_space(self, connection: AsyncConnection, wanted: EmbeddingSpace) -> bool:
        """Before vectors of `wanted` are stored in this transaction: record `wanted` when
        the store holds no item (whatever was recorded before: a failed first add leaves a
        record but no vector); EmbeddingModelChangedError when it holds vectors of another
        space. Whether `wanted` had to be recorded."""
        recorded = await self.recorded(connection)
        if recorded == wanted:
            return False
        if recorded is not None and await self.holds_items(connection):
            raise EmbeddingModelChangedError(str(recorded), str(wanted))
        await self.write_space(connection, wanted)
        return True

    async def set_space(self, wanted: EmbeddingSpace) -> None:
        async with self.engine.begin() as connection:
            await self.write_space(connection, wanted)

    async def write_space(self, connection: AsyncConnection, wanted: EmbeddingSpace) -> None:
        changed = await connection.execute(
            update(space)
            .where(space.c.id == SPACE_ROW)
            .values(model=wanted.model, dimensions=wanted.dimensions)
        )
        if changed.rowcount == 0:
            await connection.execute(
                space.insert().values(
                    id=SPACE_ROW, model=wanted.model, dimensions=wanted.dimensions, generation=0
                )
            )

    @staticmethod
    async def bump(connection: AsyncConnection) -> None:
        """Count a write (the SQLite store's caches look at the counter)."""
        await connection.execute(
            update(space).where(space.c.id == SPACE_ROW).values(generation=space.c.generation + 1)
        )

    async def duplicates(self, connection: AsyncConnection, new: Sequence[Item]) -> dict[str, Item]:
        """The stored memories that `new` memories repeat, by their content hash and scope."""
        memories = [i for i in new if i.kind == "memory"]
        if not memories:
            return {}
        first = memories[0]
        query = select(*columns(self.table)).where(
            self.table.c.tenant == first.tenant,
            self.table.c.kind == "memory",
            self.table.c.content_hash.in_({i.content_hash for i in memories}),
        )
        found: dict[str, Item] = {}
        for row in await connection.execute(query):
            stored = item_of(row)
            found[f"{stored.user}\0{stored.namespace}\0{stored.content_hash}"] = stored
        return found

    async def page(
        self, scope: Scope, *, size: int = 100, after: KeyCursor | None = None
    ) -> Page[Item, KeyCursor]:
        query = (
            select(*columns(self.table))
            .where(where(scope, self.table), self.table.c.item_id > id_after(after))
            .order_by(self.table.c.item_id)
            .limit(size + 1)
        )
        async with self.engine.connect() as connection:
            return item_page([item_of(r) for r in await connection.execute(query)], size)

    async def count(self, scope: Scope) -> int:
        async with self.engine.connect() as connection:
            found = await connection.scalar(select(func.count()).where(where(scope, self.table)))
        return int(found or 0)

    async def ids(self, connection: AsyncConnection, scope: Scope) -> list[str]:
        return list(
            (
                await connection.scalars(
                    select(self.table.c.item_id).where(where(scope, self.table))
                )
            ).all()
        )

    async def delete_rows(self, connection: AsyncConnection, scope: Scope) -> int:
        result = await connection.execute(delete(self.table).where(where(scope, self.table)))
        return int(result.rowcount or 0)

    async def scan(self, *, after: str = "", limit: int = 500) -> list[Item]:
        query = (
            select(*columns(self.table))
            .where(self.table.c.item_id > after)
            .order_by(self.table.c.item_id)
            .limit(limit)
        )
        async with self.engine.connect() as connection:
            return [item_of(r) for r in await connection.execute(query)]

    async def items_by_id(self, connection: AsyncConnection, ids: Sequence[str]) -> dict[str, Item]:
        if not ids:
            return {}
        rows = await connection.execute(
            select(*columns(self.table)).where(self.table.c.item_id.in_(ids))
        )
        return {r.item_id: item_of(r) for r in rows}


def dedupe(new: Sequence[Item], stored: dict[str, Item]) -> tuple[list[Item], list[int]]:
    """What `add` returns for `new` (a stored duplicate in place of a repeated memory),
    and the positions of the items to insert."""
    result: list[Item] = []
    insert: list[int] = []
    seen = dict(stored)
    for position, item in enumerate(new):
        key = f"{item.user}\0{item.namespace}\0{item.content_hash}"
        if item.kind == "memory" and key in seen:
            result.append(seen[key])
            continue
        if item.kind == "memory":
            seen[key] = item
        result.append(item)
        insert.append(position)
    return result, insert
