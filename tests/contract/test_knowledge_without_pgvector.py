"""A PostgreSQL without the `vector` extension (the machine's PostgreSQL 15, as on CI):
migrations pass and make no knowledge tables; the store says why memory is off."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text

from stores.knowledge.pgvector import vector_ready
from tests.contract.conftest import migrated_engine

pytestmark = pytest.mark.postgres


async def test_migrations_pass_and_memory_says_why_it_is_off(tmp_path: Path) -> None:
    async with migrated_engine("postgres", tmp_path) as engine:
        async with engine.connect() as connection:
            available = await connection.scalar(
                text("SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'")
            )
            table = await connection.scalar(text("SELECT to_regclass('knowledge_items')"))
        assert available == 0, "this machine's PostgreSQL was meant to lack pgvector"
        assert table is None
        assert "no `vector` extension" in await vector_ready(engine)
