"""Conversations in SQL (SQLite or PostgreSQL): a row per conversation, a row per turn.

A turn row holds its messages as JSON and where they start in the conversation's
numbering; the conversation's counts are those of its latest turn. A turn is one
INSERT, so it is stored whole or not at all; the primary key (conversation, turn)
keeps two appends from taking the same number, and the unique (conversation, task)
keeps a task from adding two turns.
"""

from __future__ import annotations

import asyncio
import json
import random
from datetime import datetime
from typing import Any

import sqlalchemy.exc
from sqlalchemy import Select, and_, delete, func, or_, select, true, update
from sqlalchemy.ext.asyncio import AsyncConnection

from agent.memory.model import (
    Conversation,
    ConversationMessage,
    ConversationQuery,
    Turn,
    utcnow,
)
from core.errors import ConversationNotFoundError
from stores.sql.database import Database
from stores.sql.schema import conversation_turns, conversations
from stores.sql.times import aware

_C = conversations.c
_T = conversation_turns.c
APPEND_ATTEMPTS = 20
"""Tries at a turn number while other tasks' turns take them (one task runs per
conversation, so a race is rare and short)."""


def _encode(messages: tuple[ConversationMessage, ...]) -> str:
    rows = [
        {
            "r": m.role,
            "c": m.content,
            "t": m.tool_name,
            "a": m.arguments,
            "k": m.tokens,
            "e": m.counted_with,
        }
        for m in messages
    ]
    return json.dumps(rows, separators=(",", ":"))  # ASCII: no NUL or lone surrogate in SQL


def _decode(row: Any) -> list[ConversationMessage]:
    created = aware(row.created_at)
    return [
        ConversationMessage(
            role=item["r"],
            content=item["c"],
            task_id=row.task_id,
            index=row.first_index + offset,
            tool_name=item["t"],
            arguments=item["a"],
            tokens=item["k"],
            created_at=created,
            counted_with=item.get("e", ""),
        )
        for offset, item in enumerate(json.loads(row.messages))
    ]


def _conversation(row: Any, last: Any) -> Conversation:
    return Conversation(
        conversation_id=row.conversation_id,
        tenant=row.tenant,
        created_by=row.created_by,
        title=row.title,
        labels=dict(row.labels or {}),
        created_at=aware(row.created_at),
        updated_at=aware(row.updated_at),
        message_count=last.first_index + last.message_count - 1 if last is not None else 0,
        turn_count=last.turn if last is not None else 0,
        total_tokens=last.tokens_through if last is not None else 0,
        summary=row.summary,
        summarized_through=row.summarized_through,
    )


def _newest(conversation_id: str, after: int, turns: int) -> Select[Any]:
    """The newest `turns` turns with messages after number `after`, newest first."""
    return (
        select(conversation_turns)
        .where(
            _T.conversation_id == conversation_id,
            _T.first_index + _T.message_count - 1 > after,
        )
        .order_by(_T.turn.desc())
        .limit(max(turns, 0))
    )


class SqlConversationStore:
    """ConversationStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def _row(self, tenant: str, conversation_id: str) -> Any:
        query = select(conversations).where(
            _C.conversation_id == conversation_id, _C.tenant == tenant
        )
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).first()
        if row is None:
            raise ConversationNotFoundError(conversation_id)
        return row

    async def _last_turn(self, conversation_id: str) -> Any:
        query = (
            select(conversation_turns)
            .where(_T.conversation_id == conversation_id)
            .order_by(_T.turn.desc())
            .limit(1)
        )
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).first()

    async def create(self, conversation: Conversation) -> None:
        try:
            await self._writer.insert(
                conversations,
                {
                    "conversation_id": conversation.conversation_id,
                    "tenant": conversation.tenant,
                    "created_by": conversation.created_by,
                    "title": conversation.title,
                    "labels": dict(conversation.labels),
                    "summary": conversation.summary,
                    "summarized_through": conversation.summarized_through,
                    "created_at": conversation.created_at,
                    "updated_at": conversation.updated_at,
                },
            )
        except sqlalchemy.exc.IntegrityError:
            raise ValueError(f"conversation {conversation.conversation_id} exists") from None

    async def get(self, tenant: str, conversation_id: str) -> Conversation:
        async with self._engine.connect() as connection:
            return await self._get(connection, tenant, conversation_id)

    async def _get(
        self, connection: AsyncConnection, tenant: str, conversation_id: str
    ) -> Conversation:
        """The conversation with its latest turn's counts, in one query."""
        last = (
            select(_T.turn, _T.first_index, _T.message_count, _T.tokens_through)
            .where(_T.conversation_id == conversation_id)
            .order_by(_T.turn.desc())
            .limit(1)
            .subquery()
        )
        query = (
            select(conversations, last)
            .outerjoin(last, true())
            .where(_C.conversation_id == conversation_id, _C.tenant == tenant)
        )
        row = (await connection.execute(query)).first()
        if row is None:
            raise ConversationNotFoundError(conversation_id)
        return _conversation(row, row if row.turn is not None else None)

    async def snapshot(
        self, tenant: str, conversation_id: str, turns: int
    ) -> tuple[Conversation, list[ConversationMessage]]:
        async with self._engine.connect() as connection:
            conversation: Conversation = await self._get(connection, tenant, conversation_id)
            after = conversation.summarized_through
            query = _newest(conversation_id, after, turns)
            rows = (await connection.execute(query)).all() if turns > 0 else []
        return conversation, [m for row in reversed(rows) for m in _decode(row) if m.index > after]

    async def append_turn(self, tenant: str, conversation_id: str, turn: Turn) -> bool:
        await self._row(tenant, conversation_id)
        for _ in range(APPEND_ATTEMPTS):
            last = await self._last_turn(conversation_id)
            moment = utcnow()
            row = {
                "conversation_id": conversation_id,
                "turn": (last.turn if last is not None else 0) + 1,
                "task_id": turn.task_id,
                "first_index": last.first_index + last.message_count if last is not None else 1,
                "message_count": len(turn.messages),
                "tokens_through": (last.tokens_through if last is not None else 0) + turn.tokens,
                "messages": _encode(turn.messages),
                "created_at": moment,
            }
            try:
                await self._writer.insert(conversation_turns, row)
            except sqlalchemy.exc.IntegrityError:
                if await self._has_turn(conversation_id, turn.task_id):
                    return False
                # another task's turn took the number: try the next one
                await asyncio.sleep(random.uniform(0, 0.01))
                continue
            await self._touch(conversation_id, moment)
            return True
        raise RuntimeError(f"could not append a turn to {conversation_id} (kept racing)")

    async def _has_turn(self, conversation_id: str, task_id: str) -> bool:
        query = select(_T.turn).where(_T.conversation_id == conversation_id, _T.task_id == task_id)
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).first() is not None

    async def _touch(self, conversation_id: str, moment: datetime) -> None:
        statement = (
            update(conversations)
            .where(_C.conversation_id == conversation_id, _C.updated_at < moment)
            .values(updated_at=moment)
        )
        await self._writer.execute(statement)

    async def _turns(self, conversation_id: str, after: int, limit: int, newest: bool) -> Any:
        order = _T.turn.desc() if newest else _T.turn.asc()
        query = (
            select(conversation_turns)
            .where(
                _T.conversation_id == conversation_id,
                _T.first_index + _T.message_count - 1 > after,
            )
            .order_by(order)
            .limit(limit)
        )
        async with self._engine.connect() as connection:
            return (await connection.execute(query)).all()

    async def messages(
        self, tenant: str, conversation_id: str, after: int, limit: int
    ) -> list[ConversationMessage]:
        await self._row(tenant, conversation_id)
        found: list[ConversationMessage] = []
        for row in await self._turns(conversation_id, after, limit, newest=False):
            found.extend(m for m in _decode(row) if m.index > after)
        return found[:limit]

    async def recent(
        self, tenant: str, conversation_id: str, after: int, turns: int
    ) -> list[ConversationMessage]:
        owned = (
            select(_C.conversation_id)
            .where(_C.conversation_id == conversation_id, _C.tenant == tenant)
            .exists()
        )
        query = _newest(conversation_id, after, turns).where(owned)
        async with self._engine.connect() as connection:
            rows = (await connection.execute(query)).all() if turns > 0 else []
        if not rows:
            await self._row(tenant, conversation_id)  # ConversationNotFoundError, or none
        return [m for row in reversed(rows) for m in _decode(row) if m.index > after]

    async def set_summary(
        self, tenant: str, conversation_id: str, summary: str, through: int
    ) -> bool:
        statement = (
            update(conversations)
            .where(
                _C.conversation_id == conversation_id,
                _C.tenant == tenant,
                _C.summarized_through < through,
            )
            .values(summary=summary, summarized_through=through)
        )
        if await self._writer.execute(statement) > 0:
            return True
        await self._row(tenant, conversation_id)  # ConversationNotFoundError when gone
        return False

    async def delete(self, tenant: str, conversation_id: str) -> bool:
        statement = delete(conversations).where(
            _C.conversation_id == conversation_id, _C.tenant == tenant
        )
        if await self._writer.execute(statement) == 0:
            return False
        await self._writer.execute(
            delete(conversation_turns).where(_T.conversation_id == conversation_id)
        )
        return True

    async def list(self, query: ConversationQuery) -> list[Conversation]:
        latest = (
            select(_T.conversation_id, func.max(_T.turn).label("turn"))
            .group_by(_T.conversation_id)
            .subquery()
        )
        last = conversation_turns.alias("last")
        statement = (
            select(
                conversations,
                last.c.turn,
                last.c.first_index,
                last.c.message_count,
                last.c.tokens_through,
            )
            .outerjoin(latest, latest.c.conversation_id == _C.conversation_id)
            .outerjoin(
                last,
                and_(last.c.conversation_id == _C.conversation_id, last.c.turn == latest.c.turn),
            )
            .where(_C.tenant == query.tenant, _C.created_by == query.owner)
        )
        if query.after is not None:
            created, conversation_id = query.after
            statement = statement.where(
                or_(
                    _C.created_at < created,
                    and_(_C.created_at == created, _C.conversation_id < conversation_id),
                )
            )
        statement = statement.order_by(_C.created_at.desc(), _C.conversation_id.desc())
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement.limit(query.limit))).all()
        return [_conversation(row, row if row.turn is not None else None) for row in rows]
