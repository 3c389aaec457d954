"""A restart skips Alembic when the database is at the newest revision, which it reads
from the migration files without Alembic: that reading must agree with Alembic's."""

from __future__ import annotations

from pathlib import Path

import pytest

from stores.sql import engine
from stores.sql.engine import head_revision, known_head, migrate


def test_the_head_read_without_alembic_is_alembic_s() -> None:
    assert known_head() == head_revision()


def test_two_heads_or_an_unreadable_file_leave_it_to_alembic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    versions = tmp_path / "versions"
    versions.mkdir()
    (versions / "0001_a.py").write_text('revision = "0001"\ndown_revision = None\n')
    (versions / "0002_b.py").write_text('revision = "0002"\ndown_revision = "0001"\n')
    monkeypatch.setattr(engine, "MIGRATIONS", tmp_path)
    assert known_head() == "0002"
    (versions / "0003_c.py").write_text('revision = "0003"\ndown_revision = "0001"\n')
    assert known_head() is None  # two heads
    (versions / "0003_c.py").write_text('revision = "0003"\ndown_revision = ("0001", "0002")\n')
    assert known_head() == "0003"  # a merge
    (versions / "0004_d.py").write_text("revision = compute()\n")
    assert known_head() is None


async def test_a_migrated_database_is_not_migrated_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'agentd.db'}"
    ran: list[str] = []
    real = engine.migrate_sync

    def counted(url: str, schema: str | None = None) -> None:
        ran.append(url)
        real(url, schema)

    monkeypatch.setattr(engine, "migrate_sync", counted)
    await migrate(url)  # a new database: Alembic runs
    await migrate(url)  # at the head already: nothing to do
    assert ran == [url]
