"""Conversations kept in this process (tests, benchmarks)."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from itertools import groupby

from core.errors import ConversationNotFoundError
from records.conversations.model import Conversation, ConversationMessage, ConversationQuery, Turn
from records.paging import Page, TimeCursor
from records.tasks import utcnow
from stores.conversations.base import conversation_page


@dataclass
class _Kept:
    conversation: Conversation
    messages: list[ConversationMessage] = field(default_factory=list)
    tasks: set[str] = field(default_factory=set)


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
        start = len(kept.messages)
        kept.messages.extend(
            replace(m, index=start + n, task_id=turn.task_id)
            for n, m in enumerate(turn.messages, 1)
        )
        kept.tasks.add(turn.task_id)
        old = kept.conversation
        kept.conversation = replace(
            old,
            message_count=len(kept.messages),
            turn_count=old.turn_count + 1,
            total_tokens=old.total_tokens + turn.tokens,
            updated_at=utcnow(),
        )
        return True

    async def messages(
        self, tenant: str, conversation_id: str, after: int, limit: int
    ) -> list[ConversationMessage]:
        return self._find(tenant, conversation_id).messages[max(0, after) :][:limit]

    async def recent(
        self, tenant: str, conversation_id: str, after: int, turns: int, before: int = 2**62
    ) -> list[ConversationMessage]:
        kept = self._find(tenant, conversation_id).messages[max(0, after) :]
        grouped = [list(turn) for _, turn in groupby(kept, key=lambda m: m.task_id)]
        grouped = [turn for turn in grouped if self._start(turn) < before]
        return [m for turn in grouped[-turns:] for m in turn] if turns > 0 else []

    @staticmethod
    def _start(turn: list[ConversationMessage]) -> int:
        return turn[0].index

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
