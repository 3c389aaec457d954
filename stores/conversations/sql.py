"""Conversations in SQL (SQLite or PostgreSQL): a row per conversation, a row per turn.

A turn row holds its messages as JSON and where they start in the conversation's
numbering; the conversation's row holds its counts. A turn is added by one
INSERT ... SELECT that numbers it from the conversation's counts, and the counts
move on in the same transaction (`SqlWriter.execute_together`): all of the turn
or none of it. The primary key (conversation, turn) keeps two appends from taking
the same number, and the unique (conversation, task) keeps a task from adding two
turns. The statements are built once, with bound parameters.
"""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import sqlalchemy.exc
from sqlalchemy import (
    BigInteger,
    DateTime,
    Integer,
    String,
    Text,
    and_,
    bindparam,
    delete,
    or_,
    select,
    update,
)

from core.errors import ConversationNotFoundError
from records.conversations.model import (
    MAX_TURN_MESSAGES,
    Conversation,
    ConversationMessage,
    ConversationQuery,
    Turn,
)
from records.paging import Page, TimeCursor
from records.tasks import utcnow
from stores.conversations.base import conversation_page
from stores.sql.database import Database
from stores.sql.schema import conversation_turns, conversations
from stores.sql.times import aware

_C = conversations.c
_T = conversation_turns.c
APPEND_ATTEMPTS = 20
"""Tries at a turn number while other tasks' turns take them (one task runs per
conversation, so a race is rare and short)."""
NO_BOUND = 2**62

_OWNED = and_(_C.conversation_id == bindparam("b_cid"), _C.tenant == bindparam("b_tenant"))
_GET = select(conversations).where(_OWNED)
_ROW_EXISTS = select(_C.conversation_id).where(_OWNED).exists()
_SNAPSHOT = (
    select(
        conversations,
        _T.turn.label("t_turn"),
        _T.task_id.label("t_task_id"),
        _T.first_index.label("t_first_index"),
        _T.messages.label("t_messages"),
        _T.created_at.label("t_created_at"),
    )
    .select_from(
        conversations.outerjoin(
            conversation_turns,
            and_(
                _T.conversation_id == _C.conversation_id,
                _T.turn > _C.turn_count - bindparam("b_turns", type_=Integer),
                _T.first_index + _T.message_count - 1 > _C.summarized_through,
            ),
        )
    )
    .where(_OWNED)
    .order_by(_T.turn)
)
"""A conversation and its newest `turns` turns that have messages after its summary,
oldest first: one statement (a conversation without any has one row of NULL turns)."""
_OLDER = (
    select(conversation_turns)
    .where(
        _ROW_EXISTS,
        _T.conversation_id == bindparam("b_cid"),
        _T.first_index < bindparam("b_before", type_=BigInteger),
        _T.first_index + _T.message_count - 1 > bindparam("b_after", type_=BigInteger),
    )
    .order_by(_T.turn.desc())
    .limit(bindparam("b_turns", type_=Integer))
)
_PAGE = (
    select(conversation_turns)
    .where(
        _ROW_EXISTS,
        _T.conversation_id == bindparam("b_cid"),
        # The index on (conversation, first_index) finds the first turn at once: a turn
        # holding message `after` + 1 starts at most MAX_TURN_MESSAGES before it.
        _T.first_index > bindparam("b_after", type_=BigInteger) - MAX_TURN_MESSAGES,
        _T.first_index + _T.message_count - 1 > bindparam("b_after", type_=BigInteger),
    )
    .order_by(_T.first_index)
    .limit(bindparam("b_limit", type_=Integer))
)
_ADD_TURN = conversation_turns.insert().from_select(
    [
        "conversation_id",
        "turn",
        "task_id",
        "first_index",
        "message_count",
        "tokens_through",
        "messages",
        "created_at",
    ],
    select(
        _C.conversation_id,
        _C.turn_count + 1,
        bindparam("b_task_id", type_=String(64)),
        _C.message_count + 1,
        bindparam("b_count", type_=Integer),
        _C.total_tokens + bindparam("b_tokens", type_=BigInteger),
        bindparam("b_messages", type_=Text),
        bindparam("b_now", type_=DateTime(timezone=True)),
    ).where(_OWNED),
)
_COUNT_TURN = (
    update(conversations)
    .where(_OWNED)
    .values(
        turn_count=_C.turn_count + 1,
        message_count=_C.message_count + bindparam("b_count", type_=Integer),
        total_tokens=_C.total_tokens + bindparam("b_tokens", type_=BigInteger),
        updated_at=bindparam("b_now", type_=DateTime(timezone=True)),
    )
)
_HAS_TURN = select(_T.turn).where(
    _T.conversation_id == bindparam("b_cid"), _T.task_id == bindparam("b_task_id")
)
_SET_SUMMARY = (
    update(conversations)
    .where(_OWNED, _C.summarized_through < bindparam("b_through", type_=BigInteger))
    .values(summary=bindparam("b_summary"), summarized_through=bindparam("b_through"))
)
_DELETE_TURNS = delete(conversation_turns).where(
    _T.conversation_id == bindparam("b_cid"), _ROW_EXISTS
)
_DELETE = delete(conversations).where(_OWNED)


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


def _decode(
    task_id: str, first_index: int, messages: str, created_at: Any
) -> list[ConversationMessage]:
    created = aware(created_at)
    return [
        ConversationMessage(
            role=item["r"],
            content=item["c"],
            task_id=task_id,
            index=first_index + offset,
            tool_name=item["t"],
            arguments=item["a"],
            tokens=item["k"],
            created_at=created,
            counted_with=item.get("e", ""),
        )
        for offset, item in enumerate(json.loads(messages))
    ]


def _decode_turn(row: Any) -> list[ConversationMessage]:
    return _decode(row.task_id, row.first_index, row.messages, row.created_at)


def _conversation(row: Any) -> Conversation:
    return Conversation(
        conversation_id=row.conversation_id,
        tenant=row.tenant,
        created_by=row.created_by,
        title=row.title,
        labels=dict(row.labels or {}),
        created_at=aware(row.created_at),
        updated_at=aware(row.updated_at),
        message_count=row.message_count,
        turn_count=row.turn_count,
        total_tokens=row.total_tokens,
        summary=row.summary,
        summarized_through=row.summarized_through,
    )


class SqlConversationStore:
    """ConversationStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def _read(self, statement: Any, **params: Any) -> list[Any]:
        async with self._engine.connect() as connection:
            return list((await connection.execute(statement, params)).all())

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
                    "turn_count": 0,
                    "message_count": 0,
                    "total_tokens": 0,
                },
            )
        except sqlalchemy.exc.IntegrityError:
            raise ValueError(f"conversation {conversation.conversation_id} exists") from None

    async def get(self, tenant: str, conversation_id: str) -> Conversation:
        rows = await self._read(_GET, b_cid=conversation_id, b_tenant=tenant)
        if not rows:
            raise ConversationNotFoundError(conversation_id)
        return _conversation(rows[0])

    async def snapshot(
        self, tenant: str, conversation_id: str, turns: int
    ) -> tuple[Conversation, list[ConversationMessage]]:
        params = {"b_cid": conversation_id, "b_tenant": tenant, "b_turns": max(turns, 0)}
        async with self._engine.connect() as connection:
            rows = (await connection.execute(_SNAPSHOT, params)).all()
        if not rows:
            raise ConversationNotFoundError(conversation_id)
        conversation = _conversation(rows[0])
        after = conversation.summarized_through
        found = [
            m
            for row in rows
            if row.t_turn is not None
            for m in _decode(row.t_task_id, row.t_first_index, row.t_messages, row.t_created_at)
            if m.index > after
        ]
        return conversation, found

    async def recent(
        self, tenant: str, conversation_id: str, after: int, turns: int, before: int = NO_BOUND
    ) -> list[ConversationMessage]:
        if turns <= 0:
            return []
        params = {"b_cid": conversation_id, "b_tenant": tenant, "b_after": after}
        rows = await self._read(_OLDER, **params, b_before=before, b_turns=turns)
        if not rows:
            await self.get(tenant, conversation_id)  # ConversationNotFoundError, or none
        return [m for row in reversed(rows) for m in _decode_turn(row) if m.index > after]

    async def append_turn(self, tenant: str, conversation_id: str, turn: Turn) -> bool:
        for _ in range(APPEND_ATTEMPTS):
            params = {
                "b_cid": conversation_id,
                "b_tenant": tenant,
                "b_task_id": turn.task_id,
                "b_count": len(turn.messages),
                "b_tokens": turn.tokens,
                "b_messages": _encode(turn.messages),
                "b_now": utcnow(),
            }
            try:
                added = await self._writer.execute_together(
                    [(_ADD_TURN, params), (_COUNT_TURN, params)]
                )
            except sqlalchemy.exc.IntegrityError:
                if await self._read(_HAS_TURN, b_cid=conversation_id, b_task_id=turn.task_id):
                    return False
                # another task's turn took the number: try the next one
                await asyncio.sleep(random.uniform(0, 0.01))
                continue
            if added == 0:
                raise ConversationNotFoundError(conversation_id)
            return True
        raise RuntimeError(f"could not append a turn to {conversation_id} (kept racing)")

    async def messages(
        self, tenant: str, conversation_id: str, after: int, limit: int
    ) -> list[ConversationMessage]:
        after = max(0, after)
        params = {"b_cid": conversation_id, "b_tenant": tenant, "b_after": after, "b_limit": limit}
        rows = await self._read(_PAGE, **params)
        if not rows:
            await self.get(tenant, conversation_id)  # ConversationNotFoundError, or none
        found = [m for row in rows for m in _decode_turn(row) if m.index > after]
        return found[:limit]

    async def set_summary(
        self, tenant: str, conversation_id: str, summary: str, through: int
    ) -> bool:
        params = {
            "b_cid": conversation_id,
            "b_tenant": tenant,
            "b_summary": summary,
            "b_through": through,
        }
        if await self._writer.execute(_SET_SUMMARY, params) > 0:
            return True
        await self.get(tenant, conversation_id)  # ConversationNotFoundError when gone
        return False

    async def delete(self, tenant: str, conversation_id: str) -> bool:
        params = {"b_cid": conversation_id, "b_tenant": tenant}
        deleted = await self._writer.execute_together([(_DELETE_TURNS, params), (_DELETE, params)])
        return deleted > 0

    async def list(self, query: ConversationQuery) -> Page[Conversation, TimeCursor]:
        statement = select(conversations).where(
            _C.tenant == query.tenant, _C.created_by == query.owner
        )
        if (after := query.after) is not None:
            created, conversation_id = after.created_at, after.item_id
            statement = statement.where(
                or_(
                    _C.created_at < created,
                    and_(_C.created_at == created, _C.conversation_id < conversation_id),
                )
            )
        statement = statement.order_by(_C.created_at.desc(), _C.conversation_id.desc())
        async with self._engine.connect() as connection:
            rows = (await connection.execute(statement.limit(query.limit + 1))).all()
        return conversation_page([_conversation(row) for row in rows], query.limit)
