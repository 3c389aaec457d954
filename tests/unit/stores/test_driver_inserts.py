"""The SQLite writer's plain inserts as the driver's SQL store what `table.insert()`
stores, and are declined where they would not."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Column, Integer, MetaData, String, Table, create_engine, select
from sqlalchemy.exc import IntegrityError

from stores.sql.driver_inserts import insert_rows
from stores.sql.schema import metadata, tool_call_audit

ROW: dict[str, Any] = {
    "call_id": "call_1",
    "time": datetime(2026, 11, 27, 6, 0, 0, 123456, tzinfo=UTC),
    "principal_id": "alice",
    "tenant": "acme",
    "trace_id": "a" * 32,
    "tool_name": "calculator",
    "arguments": {"expression": "1+1", "ü": [1, None, True]},
    "decision": "allowed",
    "rule": "level:read",
    "outcome": "ok",
    "result_digest": "f" * 64,
    "duration_seconds": 0.25,
    "task_id": "",
    "approval": "",
    "approved_by": "",
    "approval_comment": "",
    "attempt": 2,
    "cached": True,
    "parent_task_id": "",
    "root_task_id": "",
}


def test_rows_are_stored_as_a_compiled_insert_stores_them(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    metadata.create_all(engine)
    with engine.begin() as connection:
        connection.execute(tool_call_audit.insert(), ROW)
        assert insert_rows(connection, tool_call_audit, [ROW, {**ROW, "call_id": "call_2"}])
    with engine.connect() as connection:
        stored = connection.exec_driver_sql("SELECT * FROM tool_call_audit ORDER BY id").all()
        read = connection.execute(select(tool_call_audit).order_by(tool_call_audit.c.id)).all()
    assert len(stored) == 3
    assert stored[1][1:] == stored[0][1:]  # the very same values, as SQLite holds them
    assert stored[2][2:] == stored[0][2:]
    assert read[1][1:] == read[0][1:]
    assert read[1].arguments == ROW["arguments"]
    engine.dispose()


def test_a_column_left_to_its_python_default_or_another_database_is_declined(
    tmp_path: Path,
) -> None:
    table = Table(
        "things",
        MetaData(),
        Column("id", Integer, primary_key=True),
        Column("name", String(10), nullable=False),
        Column("kind", String(10), nullable=False, default="plain"),
    )
    engine = create_engine(f"sqlite:///{tmp_path / 'y.db'}")
    table.metadata.create_all(engine)
    with engine.begin() as connection:
        assert not insert_rows(connection, table, [{"name": "a"}])  # kind: SQLAlchemy's
        assert not insert_rows(connection, table, [{"name": "a"}, {"name": "b", "kind": "x"}])
        assert insert_rows(connection, table, [{"name": "c", "kind": "x"}])
        connection.dialect.name = "postgresql"  # pretend
        try:
            assert not insert_rows(connection, table, [{"name": "d", "kind": "x"}])
        finally:
            connection.dialect.name = "sqlite"
    with engine.connect() as connection:
        assert connection.execute(select(table.c.name)).scalars().all() == ["c"]
    engine.dispose()


def test_a_driver_error_is_raised_as_sqlalchemy_raises_it(tmp_path: Path) -> None:
    engine = create_engine(f"sqlite:///{tmp_path / 'z.db'}")
    metadata.create_all(engine)
    with engine.begin() as connection, pytest.raises(IntegrityError):
        insert_rows(connection, tool_call_audit, [{**ROW, "call_id": None}])
    engine.dispose()
