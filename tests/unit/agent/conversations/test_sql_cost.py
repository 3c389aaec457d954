"""What a turn costs the database: the statements on the conversation tables of one task
of a conversation, from its check at intake to its turn added, on SQLite."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from sqlalchemy import event

from stores.conversations.sql import SqlConversationStore
from tests.contract.conftest import migrated_database
from tests.unit.agent.conversations.chats import chat, plain


async def test_a_turn_reads_and_writes_the_conversation_in_few_statements(
    tmp_path: Path,
) -> None:
    async with migrated_database("sqlite", tmp_path) as database:
        store = SqlConversationStore(database)
        c = await chat(tmp_path, plain("The answer."), store=store)
        await c.ask("first")  # warm: the statements are compiled once
        seen: list[str] = []

        def note(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
            if "conversation" in statement:
                seen.append(statement.split()[0].upper())

        engines = [database.engine.sync_engine]
        if database.writer._sync is not None:
            engines.append(database.writer._sync)
        for engine in engines:
            event.listen(engine, "before_cursor_execute", note)
        try:
            task = await c.ask("second")
        finally:
            for engine in engines:
                event.remove(engine, "before_cursor_execute", note)
        assert task.final_answer == "The answer."
        # The check at intake, the snapshot, and the turn (numbered and counted at once).
        assert seen == ["SELECT", "SELECT", "INSERT", "UPDATE"]
        assert [m.content for m in await c.messages()] == [
            "first",
            "The answer.",
            "second",
            "The answer.",
        ]
