"""Rows of one table inserted as the driver's own SQL, for the SQLite writer.

Every RPC commits at least one audit row, so the SQL writer's inserts are the busiest
statements of a process. Run as a compiled `table.insert()`, each costs SQLAlchemy a
cache lookup, a compiled execution context and parameter processing per row: about
as much again as SQLite takes to insert it. `insert_rows` runs the writer's own plain
inserts as their SQL text instead (`Connection.exec_driver_sql`: the same
transaction, cursor events and error handling), with the values prepared once per
table as SQLAlchemy prepares them (each column type's bind processor for the
dialect: dates in SQLAlchemy's SQLite format, JSON serialised, ...), so the rows
stored are the same.

It declines (returns False; the caller executes the statement as usual) whatever it
cannot do the same: another database, rows that name different columns, or rows that
leave out a column with a Python-side default (SQLAlchemy fills those in).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, Dialect, Table


@dataclass(frozen=True, slots=True)
class _Plan:
    sql: str
    keys: tuple[str, ...]
    processors: tuple[Callable[[Any], Any] | None, ...]


_PLANS: weakref.WeakKeyDictionary[Dialect, dict[tuple[Table, tuple[str, ...]], _Plan | None]] = (
    weakref.WeakKeyDictionary()
)
"""Per dialect (an engine's), table and columns (in the rows' order): how to insert
them, or None."""


def _plan(connection: Connection, table: Table, keys: tuple[str, ...]) -> _Plan | None:
    dialect = connection.dialect
    plans = _PLANS.setdefault(dialect, {})
    if (table, keys) in plans:
        return plans[(table, keys)]
    plan = None
    columns = {column.key: column for column in table.c}
    if all(key in columns for key in keys) and not any(
        column.default is not None for key, column in columns.items() if key not in keys
    ):
        chosen = [columns[key] for key in keys]
        names = ", ".join(dialect.identifier_preparer.quote(column.name) for column in chosen)
        plan = _Plan(
            f"INSERT INTO {dialect.identifier_preparer.format_table(table)} ({names}) "
            f"VALUES ({', '.join('?' for _ in chosen)})",
            keys,
            tuple(column.type.dialect_impl(dialect).bind_processor(dialect) for column in chosen),
        )
    plans[(table, keys)] = plan
    return plan


def insert_rows(connection: Connection, table: Table, rows: Sequence[Mapping[str, Any]]) -> bool:
    """Insert `rows` into `table` on `connection` (SQLite, in its transaction) in one
    statement (an executemany for several rows); False, having done nothing, when that
    would not do what `table.insert()` does."""
    dialect = connection.dialect
    if dialect.name != "sqlite" or dialect.paramstyle != "qmark" or not rows:
        return False
    keys = tuple(rows[0])
    if any(tuple(row) != keys for row in rows):
        return False
    plan = _plan(connection, table, keys)
    if plan is None:
        return False
    pairs = tuple(zip(plan.keys, plan.processors, strict=True))
    values = [
        tuple(row[key] if process is None else process(row[key]) for key, process in pairs)
        for row in rows
    ]
    connection.exec_driver_sql(plan.sql, values)
    return True
