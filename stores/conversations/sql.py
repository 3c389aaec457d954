"""Conversations in SQL (SQLite or PostgreSQL): a row per conversation, a row per turn.

A turn row holds its messages as JSON and where they start in the conversation's
numbering; the conversation's row holds its counts. A turn is added by one
INSERT ... SELECT that numbers it from the conversation's counts, and the counts
move on in the same transaction (`SqlWriter.execute_together`): all of the turn
or none of it. The primary key (conversation, turn) keeps two appends from taking
the same number, and the unique (conversation, task) keeps a task from adding two
turns. The statements are built once, with bound parameters.

Conversations that are neither forks nor rewound (most) are read by those statements
alone; a fork's or a rewound conversation's history is read over its turn ranges by
`SqlLineage` (`sql_lineage`), which also forks, rewinds and deletes.
"""

from __future__ import annotations

import asyncio
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
from stores.conversations.sql_lineage import NO_BOUND, OWNED, SqlLineage
from stores.conversations.sql_rows import conversation, decode, decode_turn, encode, is_plain
from stores.sql.database import Database
from stores.sql.schema import conversation_summaries, conversation_turns, conversations

_C = conversations.c
_T = conversation_turns.c
APPEND_ATTEMPTS = 20
"""Tries at a turn number while other tasks' turns take them (one task runs per
conversation, so a race is rare and short)."""

_OWNED = OWNED
_GET = select(conversations).where(_OWNED)
_ROW_EXISTS = (
    select(_C.conversation_id).where(_OWNED, _C.lineage.is_(None), _C.hidden.is_(None)).exists()
)
"""The conversation is there, neither a fork nor rewound (else its turns are read by
`SqlLineage`)."""
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
_KEEP_SUMMARY = conversation_summaries.insert().from_select(
    ["conversation_id", "summarized_through", "summary", "created_at"],
    select(
        _C.conversation_id,
        bindparam("b_through", type_=BigInteger),
        bindparam("b_summary", type_=Text),
        bindparam("b_now", type_=DateTime(timezone=True)),
    ).where(_OWNED, _C.summarized_through < bindparam("b_through", type_=BigInteger)),
)
_SET_SUMMARY = (
    update(conversations)
    .where(_OWNED, _C.summarized_through < bindparam("b_through", type_=BigInteger))
    .values(summary=bindparam("b_summary"), summarized_through=bindparam("b_through"))
)


class SqlConversationStore:
    """ConversationStore on a database (owned by the caller); writes go through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer
        self._lineage = SqlLineage(database)

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
        return conversation(await self._row(tenant, conversation_id))

    async def _row(self, tenant: str, conversation_id: str) -> Any:
        rows = await self._read(_GET, b_cid=conversation_id, b_tenant=tenant)
        if not rows:
            raise ConversationNotFoundError(conversation_id)
        return rows[0]

    async def snapshot(
        self, tenant: str, conversation_id: str, turns: int
    ) -> tuple[Conversation, list[ConversationMessage]]:
        params = {"b_cid": conversation_id, "b_tenant": tenant, "b_turns": max(turns, 0)}
        async with self._engine.connect() as connection:
            rows = (await connection.execute(_SNAPSHOT, params)).all()
        if not rows:
            raise ConversationNotFoundError(conversation_id)
        found = conversation(rows[0])
        after = found.summarized_through
        if not is_plain(rows[0]):
            return found, await self._lineage.recent(rows[0], after, max(turns, 0), NO_BOUND)
        messages = [
            m
            for row in rows
            if row.t_turn is not None
            for m in decode(
                row.t_task_id, row.t_first_index, row.t_messages, row.t_created_at, row.t_turn
            )
            if m.index > after
        ]
        return found, messages

    async def recent(
        self, tenant: str, conversation_id: str, after: int, turns: int, before: int = NO_BOUND
    ) -> list[ConversationMessage]:
        if turns <= 0:
            return []
        params = {"b_cid": conversation_id, "b_tenant": tenant, "b_after": after}
        rows = await self._read(_OLDER, **params, b_before=before, b_turns=turns)
        if not rows:  # none, a fork or rewound, or no such conversation (NotFound)
            row = await self._row(tenant, conversation_id)
            return [] if is_plain(row) else await self._lineage.recent(row, after, turns, before)
        return [m for row in reversed(rows) for m in decode_turn(row) if m.index > after]

    async def append_turn(self, tenant: str, conversation_id: str, turn: Turn) -> bool:
        for _ in range(APPEND_ATTEMPTS):
            params = {
                "b_cid": conversation_id,
                "b_tenant": tenant,
                "b_task_id": turn.task_id,
                "b_count": len(turn.messages),
                "b_tokens": turn.tokens,
                "b_messages": encode(turn.messages),
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
        if not rows:  # none, a fork or rewound, or no such conversation (NotFound)
            row = await self._row(tenant, conversation_id)
            return [] if is_plain(row) else await self._lineage.messages(row, after, limit)
        found = [m for row in rows for m in decode_turn(row) if m.index > after]
        return found[:limit]

    async def set_summary(
        self, tenant: str, conversation_id: str, summary: str, through: int
    ) -> bool:
        params = {
            "b_cid": conversation_id,
            "b_tenant": tenant,
            "b_summary": summary,
            "b_through": through,
            "b_now": utcnow(),
        }
        steps = [(_KEEP_SUMMARY, params), (_SET_SUMMARY, params)]
        if await self._writer.execute_together(steps) > 0:
            return True
        await self.get(tenant, conversation_id)  # ConversationNotFoundError when gone
        return False

    async def delete(self, tenant: str, conversation_id: str) -> bool:
        return await self._lineage.delete(tenant, conversation_id)

    async def fork(
        self, tenant: str, conversation_id: str, after_turn: int, fork: Conversation
    ) -> Conversation:
        parent = await self._row(tenant, conversation_id)
        try:
            await self._lineage.fork(parent, after_turn, fork)
        except sqlalchemy.exc.IntegrityError:
            raise ValueError(f"conversation {fork.conversation_id} exists") from None
        try:
            return await self.get(tenant, fork.conversation_id)
        except ConversationNotFoundError:  # the original was deleted meanwhile
            raise ConversationNotFoundError(conversation_id) from None

    async def rewind(self, tenant: str, conversation_id: str, after_turn: int) -> Conversation:
        for _ in range(APPEND_ATTEMPTS):
            row = await self._row(tenant, conversation_id)
            if await self._lineage.rewind(row, after_turn):
                return await self.get(tenant, conversation_id)
        raise RuntimeError(f"could not rewind {conversation_id} (it kept changing)")

    async def turn_of(self, tenant: str, conversation_id: str, task_id: str) -> int:
        return await self._lineage.turn_of(await self._row(tenant, conversation_id), task_id)

    async def list(self, query: ConversationQuery) -> Page[Conversation, TimeCursor]:
        statement = select(conversations).where(
            _C.tenant == query.tenant, _C.created_by == query.owner, _C.deleted_at.is_(None)
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
        return conversation_page([conversation(row) for row in rows], query.limit)
