"""The tables of `stores.sql.schema` are the tables the migrations make, on SQLite and on
the machine's PostgreSQL: a column, type, nullability or index changed in one and not in
the other is a difference here (Alembic's autogenerate comparison, which finds none).

The knowledge tables (`stores.knowledge.tables`) are left out: they differ by dialect on
purpose (FTS5 on SQLite, pgvector on PostgreSQL) and their store completes them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import Connection, inspect

from stores.sql.engine import alembic_config, create_engine
from stores.sql.schema import metadata
from tests.contract.conftest import SQL_BACKENDS, empty_database, migrated_engine


def _ours(name: str | None, type_: str, parents: Any) -> bool:
    return type_ != "table" or name in metadata.tables


def _differences(connection: Connection) -> list[Any]:
    context = MigrationContext.configure(
        connection, opts={"compare_type": True, "include_name": _ours}
    )
    return list(compare_metadata(context, metadata))


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_the_migrated_tables_are_the_schema_s(kind: str, tmp_path: Path) -> None:
    async with migrated_engine(kind, tmp_path) as engine, engine.connect() as connection:
        assert await connection.run_sync(_differences) == []
        tables = await connection.run_sync(lambda c: set(inspect(c).get_table_names()))
    assert set(metadata.tables) <= tables
    assert "task_waits" in metadata.tables


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_the_waits_are_keyed_by_task_and_slot_and_indexed(kind: str, tmp_path: Path) -> None:
    async with migrated_engine(kind, tmp_path) as engine, engine.connect() as connection:
        key, indexes = await connection.run_sync(
            lambda c: (
                inspect(c).get_pk_constraint("task_waits")["constrained_columns"],
                {i["name"]: i["column_names"] for i in inspect(c).get_indexes("task_waits")},
            )
        )
    assert key == ["task_id", "slot"]
    assert indexes == {
        "ix_task_waits_deadline": ["state", "deadline_at"],
        "ix_task_waits_remind": ["state", "remind_at"],
        "ix_task_waits_answered": ["state", "answered_at"],
        "ix_task_waits_polls": ["kind", "state", "check_at"],
        "ix_task_waits_pending": ["tenant", "state", "created_at", "task_id", "slot"],
        "ix_task_waits_root": ["root_task_id"],
    }


LISTS = ("ix_task_waits_inbox", "ix_task_waits_pending")


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_0024_indexes_the_inbox_in_its_order_and_downgrades(
    kind: str, tmp_path: Path
) -> None:
    async with empty_database(kind, tmp_path) as (url, schema):
        config = alembic_config(url, schema)
        engine = create_engine(url, schema=schema)

        async def indexes() -> dict[str | None, list[str | None]]:
            async with engine.connect() as connection:
                found = await connection.run_sync(
                    lambda c: {
                        i["name"]: i["column_names"] for i in inspect(c).get_indexes("task_waits")
                    }
                )
            return {name: columns for name, columns in found.items() if name in LISTS}

        try:
            await asyncio.to_thread(command.upgrade, config, "head")
            pending = ["tenant", "state", "created_at", "task_id", "slot"]
            assert await indexes() == {"ix_task_waits_pending": pending}
            await asyncio.to_thread(command.downgrade, config, "0023")
            assert await indexes() == {"ix_task_waits_inbox": ["tenant", "state", "created_at"]}
            await asyncio.to_thread(command.upgrade, config, "head")
            async with engine.connect() as connection:
                assert await connection.run_sync(_differences) == []
        finally:
            await engine.dispose()


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_0025_keeps_approval_rules_and_downgrades(kind: str, tmp_path: Path) -> None:
    async with empty_database(kind, tmp_path) as (url, schema):
        config = alembic_config(url, schema)
        engine = create_engine(url, schema=schema)

        async def columns(table: str) -> dict[str, Any]:
            async with engine.connect() as connection:
                found = await connection.run_sync(lambda c: inspect(c).get_columns(table))
            return {column["name"]: column["type"] for column in found}

        try:
            await asyncio.to_thread(command.upgrade, config, "head")
            waits = await columns("task_waits")
            assert {"roles_by_rule", "remind_at", "escalation_level", "escalation"} <= set(waits)
            assert "approval" in await columns("tool_grants")
            assert (await columns("tool_call_audit"))["approval"].length == 32
            await asyncio.to_thread(command.downgrade, config, "0024")
            assert "escalation" not in await columns("task_waits")
            assert "approval" not in await columns("tool_grants")
            assert (await columns("tool_call_audit"))["approval"].length == 16
            await asyncio.to_thread(command.upgrade, config, "head")
            async with engine.connect() as connection:
                assert await connection.run_sync(_differences) == []
        finally:
            await engine.dispose()


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_0020_downgrades_and_upgrades_again(kind: str, tmp_path: Path) -> None:
    async with empty_database(kind, tmp_path) as (url, schema):
        config = alembic_config(url, schema)
        engine = create_engine(url, schema=schema)

        async def tables() -> set[str]:
            async with engine.connect() as connection:
                return await connection.run_sync(lambda c: set(inspect(c).get_table_names()))

        try:
            await asyncio.to_thread(command.upgrade, config, "head")
            assert "task_waits" in await tables()
            await asyncio.to_thread(command.downgrade, config, "0019")
            assert "task_waits" not in await tables()
            await asyncio.to_thread(command.upgrade, config, "head")
            async with engine.connect() as connection:
                assert await connection.run_sync(_differences) == []
        finally:
            await engine.dispose()


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_0022_makes_the_guardrail_audit_indexed_and_downgrades(
    kind: str, tmp_path: Path
) -> None:
    async with empty_database(kind, tmp_path) as (url, schema):
        config = alembic_config(url, schema)
        engine = create_engine(url, schema=schema)

        async def tables() -> set[str]:
            async with engine.connect() as connection:
                return await connection.run_sync(lambda c: set(inspect(c).get_table_names()))

        try:
            await asyncio.to_thread(command.upgrade, config, "head")
            async with engine.connect() as connection:
                indexes = await connection.run_sync(
                    lambda c: {
                        i["name"]: i["column_names"]
                        for i in inspect(c).get_indexes("guardrail_audit")
                    }
                )
            assert indexes == {
                "ix_guardrail_audit_tenant_id": ["tenant", "id"],
                "ix_guardrail_audit_tenant_task": ["tenant", "task_id"],
            }
            await asyncio.to_thread(command.downgrade, config, "0021")
            assert "guardrail_audit" not in await tables()
            await asyncio.to_thread(command.upgrade, config, "head")
            async with engine.connect() as connection:
                assert await connection.run_sync(_differences) == []
        finally:
            await engine.dispose()


@pytest.mark.parametrize("kind", SQL_BACKENDS)
async def test_0026_makes_the_inbox_history_indexed_and_downgrades(
    kind: str, tmp_path: Path
) -> None:
    async with empty_database(kind, tmp_path) as (url, schema):
        config = alembic_config(url, schema)
        engine = create_engine(url, schema=schema)

        async def shape() -> tuple[set[str], list[str], dict[str, list[str]]]:
            def read(c: Connection) -> tuple[set[str], list[str], dict[str, list[str]]]:
                found = inspect(c)
                tables = set(found.get_table_names())
                if "action_history" not in tables:
                    return tables, [], {}
                key = found.get_pk_constraint("action_history")["constrained_columns"]
                indexes = found.get_indexes("action_history")
                return (
                    tables,
                    key,
                    {str(i["name"]): [str(c) for c in i["column_names"]] for i in indexes},
                )

            async with engine.connect() as connection:
                return await connection.run_sync(read)

        try:
            await asyncio.to_thread(command.upgrade, config, "head")
            tables, key, indexes = await shape()
            assert "action_history" in tables
            assert key == ["entry_id"]
            assert indexes == {
                "ix_action_history_tenant_time": ["tenant", "time", "task_id", "entry_id"],
                "ix_action_history_task": ["task_id", "time", "entry_id"],
                "ix_action_history_root": ["root_task_id", "time", "task_id", "entry_id"],
                "ix_action_history_time": ["time"],
            }
            await asyncio.to_thread(command.downgrade, config, "0024")
            assert "action_history" not in (await shape())[0]
            await asyncio.to_thread(command.upgrade, config, "head")
            async with engine.connect() as connection:
                assert await connection.run_sync(_differences) == []
        finally:
            await engine.dispose()
