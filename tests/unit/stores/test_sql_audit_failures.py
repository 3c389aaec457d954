"""A failed commit reaches every caller whose record was in it; nothing is silently lost."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from pathlib import Path

import pytest

from records.tools.audit import ToolCallRecord
from stores.audit.sql import SqlAuditLog
from stores.sql.database import Database


async def test_every_writer_sees_the_failure(tmp_path: Path) -> None:
    database = Database.open(f"sqlite+aiosqlite:///{tmp_path / 'unmigrated.db'}")  # no tables
    log = SqlAuditLog(database)
    record = ToolCallRecord(
        "c", datetime.now(UTC), "p", "t", "a" * 32, "calc", {}, "allowed", "r", "ok", "", 0.0
    )
    results = await asyncio.gather(*(log.write(record) for _ in range(5)), return_exceptions=True)
    assert len(results) == 5
    assert all(isinstance(r, Exception) and "tool_call_audit" in str(r) for r in results)
    await database.close()
    other = Database.open(f"sqlite+aiosqlite:///{tmp_path / 'other.db'}")
    with pytest.raises(Exception, match="tool_call_audit"):
        await SqlAuditLog(other).write(record)
    await other.close()
