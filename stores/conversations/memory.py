"""Conversations kept in this process (tests, benchmarks).

A fork holds references to the conversations it shares turns with, so a deleted
original's turns live on while a fork reads them (as the SQL store keeps them).
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field, replace

from core.errors import ConversationNotFoundError
from records.conversations import lineage as lin
from records.conversations.model import Conversation, ConversationMessage, ConversationQuery, Turn
from records.paging import Page, TimeCursor
from records.tasks import utcnow
from stores.conversations.base import (
    conversation_page,
    lineage_too_long,
    point_problem,
    too_many_rewinds,
)


@dataclass(frozen=True, slots=True)
class _Stored:
    turn: int
    task_id: str
    messages: tuple[ConversationMessage, ...]
    tokens_through: int


@dataclass
class _Kept:
    conversation: Conversation
    turns: list[_Stored] = field(default_factory=list)
    """Its own turns, in order (a fork's start after its fork point)."""
    tasks: set[str] = field(default_factory=set)
    lineage: lin.Lineage = ()
    sources: dict[str, _Kept] = field(default_factory=dict)
    """The conversations its lineage names, by id (kept alive by this reference)."""
    hidden: lin.Ranges = ()
    snapshots: list[tuple[int, str]] = field(default_factory=list)
    """Each summary stored, with the message it covers through, in order."""

    def stored(self, turn: int) -> _Stored:
        owner = lin.owner_of(self.conversation.conversation_id, self.lineage, turn)
        kept = self.sources.get(owner, self)
        return kept.turns[turn - lin.own_start(kept.lineage)]

    def history(self, hidden: lin.Ranges = ()) -> list[_Stored]:
        """Its turns, shared ones first, without the `hidden` ranges."""
        cid = self.conversation.conversation_id
        found: list[_Stored] = []
        for part in lin.segments(cid, self.lineage, hidden):
            kept = self.sources.get(part.conversation_id, self)
            found.extend(t for t in kept.turns if part.first <= t.turn <= part.last)
        return found


class InMemoryConversationStore:
    def __init__(self) -> None:
        self._kept: dict[str, _Kept] = {}

    def _find(self, tenant: str, conversation_id: str) -> _Kept:
        kept = self._kept.get(conversation_id)
        if kept is None or kept.conversation.tenant != tenant:
            raise ConversationNotFoundError(conversation_id)
        return kept

    async def create(self, conversation: Conversation) -> None:
        if conversation.conversation_id in self._kept:
            raise ValueError(f"conversation {conversation.conversation_id} exists")
        self._kept[conversation.conversation_id] = _Kept(conversation)

    async def get(self, tenant: str, conversation_id: str) -> Conversation:
        return self._find(tenant, conversation_id).conversation

    async def append_turn(self, tenant: str, conversation_id: str, turn: Turn) -> bool:
        kept = self._find(tenant, conversation_id)
        if turn.task_id in kept.tasks:
            return False
        old = kept.conversation
        number, start = old.turn_count + 1, old.message_count
        messages = tuple(
            replace(m, index=start + n, task_id=turn.task_id, turn=number)
            for n, m in enumerate(turn.messages, 1)
        )
        kept.turns.append(_Stored(number, turn.task_id, messages, old.total_tokens + turn.tokens))
        kept.tasks.add(turn.task_id)
        kept.conversation = replace(
            old,
            message_count=start + len(messages),
            turn_count=number,
            total_tokens=old.total_tokens + turn.tokens,
            updated_at=utcnow(),
        )
        return True

    async def messages(
        self, tenant: str, conversation_id: str, after: int, limit: int
    ) -> list[ConversationMessage]:
        kept = self._find(tenant, conversation_id)
        found = [
            replace(m, rewound=True) if lin.is_hidden(kept.hidden, t.turn) else m
            for t in kept.history()
            for m in t.messages
            if m.index > after
        ]
        return found[:limit]

    async def recent(
        self, tenant: str, conversation_id: str, after: int, turns: int, before: int = 2**62
    ) -> list[ConversationMessage]:
        kept = self._find(tenant, conversation_id)
        chosen = [
            t
            for t in kept.history(kept.hidden)
            if t.messages and t.messages[-1].index > after and t.messages[0].index < before
        ]
        chosen = chosen[-turns:] if turns > 0 else []
        return [m for t in chosen for m in t.messages if m.index > after]

    async def snapshot(
        self, tenant: str, conversation_id: str, turns: int
    ) -> tuple[Conversation, list[ConversationMessage]]:
        conversation = await self.get(tenant, conversation_id)
        after = conversation.summarized_through
        return conversation, await self.recent(tenant, conversation_id, after, turns)

    async def set_summary(
        self, tenant: str, conversation_id: str, summary: str, through: int
    ) -> bool:
        kept = self._find(tenant, conversation_id)
        if through <= kept.conversation.summarized_through:
            return False
        kept.conversation = replace(kept.conversation, summary=summary, summarized_through=through)
        kept.snapshots.append((through, summary))
        return True

    async def delete(self, tenant: str, conversation_id: str) -> bool:
        kept = self._kept.get(conversation_id)
        if kept is None or kept.conversation.tenant != tenant:
            return False
        del self._kept[conversation_id]
        return True

    async def list(self, query: ConversationQuery) -> Page[Conversation, TimeCursor]:
        found = [
            k.conversation
            for k in self._kept.values()
            if k.conversation.tenant == query.tenant and k.conversation.created_by == query.owner
        ]
        found.sort(key=lambda c: (c.created_at, c.conversation_id), reverse=True)
        if (after := query.after) is not None:
            start = (after.created_at, after.item_id)
            found = [c for c in found if (c.created_at, c.conversation_id) < start]
        return conversation_page(found, query.limit)

    async def fork(
        self, tenant: str, conversation_id: str, after_turn: int, fork: Conversation
    ) -> Conversation:
        parent = self._find(tenant, conversation_id)
        problem = point_problem(after_turn, parent.conversation.turn_count, 1)
        if problem is not None:
            raise ValueError(f"after_turn {problem}")
        if fork.conversation_id in self._kept:
            raise ValueError(f"conversation {fork.conversation_id} exists")
        lineage = lin.forked(conversation_id, parent.lineage, after_turn)
        if len(lineage) > lin.MAX_LINEAGE:
            raise lineage_too_long(conversation_id)
        at = parent.stored(after_turn)
        last = at.messages[-1].index if at.messages else 0
        snapshots = parent.snapshots[: bisect_right(parent.snapshots, (last, "\U0010ffff"))]
        through, summary = snapshots[-1] if snapshots else (0, "")
        hidden = lin.clipped(parent.hidden, after_turn)
        made = replace(
            fork,
            tenant=tenant,
            message_count=last,
            turn_count=after_turn,
            total_tokens=at.tokens_through,
            summary=summary,
            summarized_through=through,
            forked_from=conversation_id,
            forked_at_turn=after_turn,
            rewound_turns=lin.hidden_count(hidden),
        )
        sources = {**parent.sources, conversation_id: parent}
        self._kept[fork.conversation_id] = _Kept(
            made,
            lineage=lineage,
            sources={cid: sources[cid] for cid, _ in lineage},
            hidden=hidden,
            snapshots=[(through, summary)] if through else [],
        )
        return made

    async def rewind(self, tenant: str, conversation_id: str, after_turn: int) -> Conversation:
        kept = self._find(tenant, conversation_id)
        old = kept.conversation
        problem = point_problem(after_turn, old.turn_count, 0)
        if problem is not None:
            raise ValueError(f"after_turn {problem}")
        if after_turn == old.turn_count:
            return old
        hidden = lin.with_hidden(kept.hidden, after_turn + 1, old.turn_count)
        if len(hidden) > lin.MAX_HIDDEN_RANGES:
            raise too_many_rewinds(conversation_id)
        point = 0
        if after_turn:
            at = kept.stored(after_turn)
            point = at.messages[-1].index if at.messages else 0
        kept.hidden = hidden
        kept.snapshots = [s for s in kept.snapshots if s[0] <= point]
        summary, through = old.summary, old.summarized_through
        if through > point:
            through, summary = kept.snapshots[-1] if kept.snapshots else (0, "")
        kept.conversation = replace(
            old,
            summary=summary,
            summarized_through=through,
            rewound_turns=lin.hidden_count(hidden),
        )
        return kept.conversation

    async def turn_of(self, tenant: str, conversation_id: str, task_id: str) -> int:
        kept = self._find(tenant, conversation_id)
        for t in kept.history():
            if t.task_id == task_id:
                return t.turn
        return 0
