"""Forks and rewinds in SQL: reading a history over its turn ranges, forking, rewinding,
and deleting conversations whose turns forks share.

A fork's or a rewound conversation's history is the turn rows of a few ranges
(`records.conversations.lineage.segments`), each read with one prebuilt statement on
the primary key (conversation, turn): never a copy, never a scan of what is not read.
A fork is one transaction of four statements whatever the length of what it shares.

Deleting keeps what forks read. `fork_refs` counts the forks whose lineage names a
conversation; a fork takes its references in the transaction that makes it, after
locking its original's row (the first statement updates it), so a delete of the
original either comes first (and the fork finds no original) or sees the new
reference. A delete marks the row deleted (gone for every caller) and, only while
nothing refers to it, removes its turns, kept summaries and row; then it gives back
its own references and removes each ancestor that was deleted and is no longer
referred to. A crash between the two leaves references too high: turns kept too
long, never lost.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    Integer,
    String,
    Text,
    and_,
    bindparam,
    delete,
    func,
    select,
    update,
)

from records.conversations import lineage as lin
from records.conversations.model import MAX_TURN_MESSAGES, Conversation, ConversationMessage
from records.tasks import utcnow
from stores.conversations.base import lineage_too_long, point_problem, too_many_rewinds
from stores.conversations.sql_rows import decode_turn, last_index
from stores.sql.database import Database
from stores.sql.schema import conversation_summaries, conversation_turns, conversations

_C = conversations.c
_T = conversation_turns.c
_S = conversation_summaries.c
NO_BOUND = 2**62

OWNED = and_(
    _C.conversation_id == bindparam("b_cid"),
    _C.tenant == bindparam("b_tenant"),
    _C.deleted_at.is_(None),
)
"""The caller's tenant's conversation, not deleted."""

_IN_RANGE = and_(
    _T.conversation_id == bindparam("b_cid"),
    _T.turn >= bindparam("b_first", type_=BigInteger),
    _T.turn <= bindparam("b_last", type_=BigInteger),
)
_RANGE_OLDER = (
    select(conversation_turns)
    .where(
        _IN_RANGE,
        _T.first_index < bindparam("b_before", type_=BigInteger),
        _T.first_index + _T.message_count - 1 > bindparam("b_after", type_=BigInteger),
    )
    .order_by(_T.turn.desc())
    .limit(bindparam("b_turns", type_=Integer))
)
_RANGE_PAGE = (
    select(conversation_turns)
    .where(
        _IN_RANGE,
        _T.first_index > bindparam("b_after", type_=BigInteger) - MAX_TURN_MESSAGES,
        _T.first_index + _T.message_count - 1 > bindparam("b_after", type_=BigInteger),
    )
    .order_by(_T.first_index)
    .limit(bindparam("b_limit", type_=Integer))
)
_RANGE_TASK = select(_T.turn).where(_IN_RANGE, _T.task_id == bindparam("b_task_id"))
_TURN = select(conversation_turns).where(
    _T.conversation_id == bindparam("b_cid"), _T.turn == bindparam("b_turn", type_=BigInteger)
)
_SUMMARY_AT = (
    select(_S.summary, _S.summarized_through)
    .where(
        _S.conversation_id == bindparam("b_cid"),
        _S.summarized_through <= bindparam("b_point", type_=BigInteger),
    )
    .order_by(_S.summarized_through.desc())
    .limit(1)
)
"""The latest kept summary that covers no message after the point."""

_FORK_COLUMNS: dict[str, Any] = {
    "conversation_id": String(64),
    "tenant": String(128),
    "created_by": String(256),
    "title": Text,
    "labels": JSON,
    "summary": Text,
    "summarized_through": BigInteger,
    "created_at": DateTime(timezone=True),
    "updated_at": DateTime(timezone=True),
    "turn_count": BigInteger,
    "message_count": BigInteger,
    "total_tokens": BigInteger,
    "forked_from": String(64),
    "forked_at_turn": BigInteger,
    "lineage": Text,
    "hidden": Text,
}
_LOCK_ORIGINAL = (
    update(conversations)
    .where(OWNED, _C.turn_count >= bindparam("b_turn", type_=BigInteger))
    .values(fork_refs=_C.fork_refs + bindparam("b_refs", type_=BigInteger))
)
"""Locks the original's row (and counts the fork's reference when its lineage names it)."""
_ORIGINAL_THERE = select(_C.conversation_id).where(OWNED).exists()
_INSERT_FORK = conversations.insert().from_select(
    list(_FORK_COLUMNS),
    select(*(bindparam(f"f_{name}", type_=kind) for name, kind in _FORK_COLUMNS.items())).where(
        _ORIGINAL_THERE
    ),
)
_FORK_THERE = (
    select(_C.conversation_id).where(_C.conversation_id == bindparam("f_conversation_id")).exists()
)
_REFER = (
    update(conversations)
    .where(_C.conversation_id.in_(bindparam("b_ids", expanding=True)), _FORK_THERE)
    .values(fork_refs=_C.fork_refs + 1)
)
_KEEP_FORK_SUMMARY = conversation_summaries.insert().from_select(
    ["conversation_id", "summarized_through", "summary", "created_at"],
    select(_C.conversation_id, _C.summarized_through, _C.summary, _C.created_at).where(
        _C.conversation_id == bindparam("f_conversation_id"), _C.summarized_through > 0
    ),
)

_UNCHANGED = and_(
    OWNED,
    _C.turn_count == bindparam("b_count", type_=BigInteger),
    func.coalesce(_C.hidden, "") == bindparam("b_old_hidden", type_=Text),
    _C.summarized_through == bindparam("b_old_through", type_=BigInteger),
)
"""The conversation as the rewind read it."""
_DROP_LATER_SUMMARIES = delete(conversation_summaries).where(
    _S.conversation_id == bindparam("b_cid"),
    _S.summarized_through > bindparam("b_point", type_=BigInteger),
    select(_C.conversation_id).where(_UNCHANGED).exists(),
)
_REWIND = (
    update(conversations)
    .where(_UNCHANGED)
    .values(
        hidden=bindparam("b_hidden", type_=Text),
        summary=bindparam("b_summary", type_=Text),
        summarized_through=bindparam("b_through", type_=BigInteger),
    )
)

_LIVE = select(conversations).where(OWNED)
_RAW = select(conversations).where(_C.conversation_id == bindparam("b_cid"))
_MARK_DELETED = (
    update(conversations)
    .where(OWNED)
    .values(deleted_at=bindparam("b_now", type_=DateTime(timezone=True)))
)
_FREE = (
    select(_C.conversation_id)
    .where(
        _C.conversation_id == bindparam("b_cid"),
        _C.fork_refs == 0,
        _C.deleted_at.is_not(None),
    )
    .exists()
)
"""Deleted, and no fork refers to it: its rows may go."""
_DROP_FREE_SUMMARIES = delete(conversation_summaries).where(
    _S.conversation_id == bindparam("b_cid"), _FREE
)
_DROP_FREE_TURNS = delete(conversation_turns).where(_T.conversation_id == bindparam("b_cid"), _FREE)
_DROP_FREE_ROW = delete(conversations).where(
    _C.conversation_id == bindparam("b_cid"), _C.fork_refs == 0, _C.deleted_at.is_not(None)
)
_RELEASE = (
    update(conversations)
    .where(_C.conversation_id.in_(bindparam("b_ids", expanding=True)), _C.fork_refs > 0)
    .values(fork_refs=_C.fork_refs - 1)
)


class SqlLineage:
    """The part of the SQL conversation store that knows forks and rewinds."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer

    async def _read(self, statement: Any, **params: Any) -> list[Any]:
        async with self._engine.connect() as connection:
            return list((await connection.execute(statement, params)).all())

    async def recent(
        self, row: Any, after: int, turns: int, before: int
    ) -> list[ConversationMessage]:
        """`ConversationStore.recent` of the conversation of `row`: its newest visible
        turns, a range at a time from the newest, until `turns` are found."""
        cid, lineage = row.conversation_id, lin.decode_lineage(row.lineage)
        found: list[Any] = []
        async with self._engine.connect() as connection:
            for part in reversed(lin.segments(cid, lineage, lin.decode_ranges(row.hidden))):
                if len(found) >= turns:
                    break
                params = {
                    "b_cid": part.conversation_id,
                    "b_first": part.first,
                    "b_last": part.last,
                    "b_after": after,
                    "b_before": before,
                    "b_turns": turns - len(found),
                }
                found.extend((await connection.execute(_RANGE_OLDER, params)).all())
        found.sort(key=lambda r: r.turn)
        return [m for r in found for m in decode_turn(r) if m.index > after]

    async def messages(self, row: Any, after: int, limit: int) -> list[ConversationMessage]:
        """`ConversationStore.messages` of the conversation of `row`: every turn, the
        rewound ones marked, a range at a time from the oldest, until `limit` are found."""
        cid, lineage = row.conversation_id, lin.decode_lineage(row.lineage)
        hidden = lin.decode_ranges(row.hidden)
        found: list[ConversationMessage] = []
        async with self._engine.connect() as connection:
            for part in lin.segments(cid, lineage):
                if len(found) >= limit:
                    break
                params = {
                    "b_cid": part.conversation_id,
                    "b_first": part.first,
                    "b_last": part.last,
                    "b_after": after,
                    "b_limit": limit - len(found),
                }
                for turn in (await connection.execute(_RANGE_PAGE, params)).all():
                    rewound = lin.is_hidden(hidden, turn.turn)
                    found.extend(m for m in decode_turn(turn, rewound) if m.index > after)
        return found[:limit]

    async def turn_of(self, row: Any, task_id: str) -> int:
        """The turn of the history of `row` that `task_id` added; 0 when none did."""
        lineage = lin.decode_lineage(row.lineage)
        async with self._engine.connect() as connection:
            for part in lin.segments(row.conversation_id, lineage):
                params = {
                    "b_cid": part.conversation_id,
                    "b_first": part.first,
                    "b_last": part.last,
                    "b_task_id": task_id,
                }
                turn = (await connection.execute(_RANGE_TASK, params)).scalar()
                if turn is not None:
                    return int(turn)
        return 0

    async def _turn_row(self, row: Any, turn: int) -> Any:
        owner = lin.owner_of(row.conversation_id, lin.decode_lineage(row.lineage), turn)
        rows = await self._read(_TURN, b_cid=owner, b_turn=turn)
        if not rows:
            raise RuntimeError(f"turn {turn} of {row.conversation_id} is not stored")
        return rows[0]

    async def _summary_at(self, conversation_id: str, point: int) -> tuple[str, int]:
        rows = await self._read(_SUMMARY_AT, b_cid=conversation_id, b_point=point)
        return (rows[0].summary, int(rows[0].summarized_through)) if rows else ("", 0)

    async def fork(self, parent: Any, after_turn: int, fork: Conversation) -> None:
        """Make `fork` share the turns of `parent` (a row) through `after_turn`: two
        indexed reads and one transaction, whatever the number of turns shared.
        ConversationNotFoundError when the parent went meanwhile."""
        problem = point_problem(after_turn, parent.turn_count, 1)
        if problem is not None:
            raise ValueError(f"after_turn {problem}")
        cid = parent.conversation_id
        lineage = lin.forked(cid, lin.decode_lineage(parent.lineage), after_turn)
        if len(lineage) > lin.MAX_LINEAGE:
            raise lineage_too_long(cid)
        at = await self._turn_row(parent, after_turn)
        summary, through = await self._summary_at(cid, last_index(at))
        now = utcnow()
        values = {
            "conversation_id": fork.conversation_id,
            "tenant": parent.tenant,
            "created_by": fork.created_by,
            "title": fork.title,
            "labels": dict(fork.labels),
            "summary": summary,
            "summarized_through": through,
            "created_at": now,
            "updated_at": now,
            "turn_count": after_turn,
            "message_count": last_index(at),
            "total_tokens": at.tokens_through,
            "forked_from": cid,
            "forked_at_turn": after_turn,
            "lineage": lin.encode(lineage),
            "hidden": lin.encode(lin.clipped(lin.decode_ranges(parent.hidden), after_turn)),
        }
        params: dict[str, Any] = {f"f_{name}": value for name, value in values.items()}
        ids = [ancestor for ancestor, _ in lineage if ancestor != cid]
        params |= {"b_cid": cid, "b_tenant": parent.tenant, "b_turn": after_turn}
        params |= {"b_refs": int(len(ids) < len(lineage)), "b_ids": ids or [""]}
        await self._writer.execute_together(
            [
                (_LOCK_ORIGINAL, params),
                (_INSERT_FORK, params),
                (_REFER, params),
                (_KEEP_FORK_SUMMARY, params),
            ]
        )

    async def rewind(self, row: Any, after_turn: int) -> bool:
        """Hide the turns of `row`'s conversation after `after_turn`; False when the
        conversation changed since `row` was read (nothing is written then)."""
        problem = point_problem(after_turn, row.turn_count, 0)
        if problem is not None:
            raise ValueError(f"after_turn {problem}")
        if after_turn == row.turn_count:
            return True
        hidden = lin.with_hidden(lin.decode_ranges(row.hidden), after_turn + 1, row.turn_count)
        if len(hidden) > lin.MAX_HIDDEN_RANGES:
            raise too_many_rewinds(row.conversation_id)
        point = last_index(await self._turn_row(row, after_turn)) if after_turn else 0
        summary, through = row.summary, row.summarized_through
        if through > point:
            summary, through = await self._summary_at(row.conversation_id, point)
        params = {
            "b_cid": row.conversation_id,
            "b_tenant": row.tenant,
            "b_count": row.turn_count,
            "b_old_hidden": row.hidden or "",
            "b_old_through": row.summarized_through,
            "b_point": point,
            "b_hidden": lin.encode(hidden),
            "b_summary": summary,
            "b_through": through,
        }
        steps = [(_DROP_LATER_SUMMARIES, params), (_REWIND, params)]
        return await self._writer.execute_together(steps) > 0

    async def delete(self, tenant: str, conversation_id: str) -> bool:
        """`ConversationStore.delete`, keeping what forks still read (module docstring)."""
        params = {"b_cid": conversation_id, "b_tenant": tenant, "b_now": utcnow()}
        steps = [
            (_MARK_DELETED, params),
            (_DROP_FREE_SUMMARIES, params),
            (_DROP_FREE_TURNS, params),
            (_DROP_FREE_ROW, params),
        ]
        rows = await self._read(_LIVE, **params)
        if not rows:
            return False
        if await self._writer.execute_together(steps) > 0:
            await self._release(lin.decode_lineage(rows[0].lineage))
        return True

    async def _release(self, lineage: lin.Lineage) -> None:
        """Give back the references of a removed fork, and remove each ancestor that was
        deleted and is no longer referred to (in turn giving back its own)."""
        ids = [ancestor for ancestor, _ in lineage]
        if not ids:
            return
        await self._writer.execute(_RELEASE, {"b_ids": ids})
        for ancestor in reversed(ids):
            rows = await self._read(_RAW, b_cid=ancestor)
            if not rows or rows[0].deleted_at is None or rows[0].fork_refs > 0:
                continue
            params = {"b_cid": ancestor}
            steps = [
                (_DROP_FREE_SUMMARIES, params),
                (_DROP_FREE_TURNS, params),
                (_DROP_FREE_ROW, params),
            ]
            if await self._writer.execute_together(steps) > 0:
                await self._release(lin.decode_lineage(rows[0].lineage))
