"""Conversations of every tenant: the conversation RPCs go through here.

Ids are checked before any store sees them (a malformed id is INVALID_ARGUMENT);
another tenant's conversation is NOT_FOUND exactly like an unknown one.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Mapping

from agent.memory.busy import BusyGate
from agent.memory.model import (
    MAX_TITLE_CHARS,
    Conversation,
    ConversationMessage,
    ConversationQuery,
    conversation_id_problem,
    new_conversation_id,
)
from agent.requests import label_violations
from core.errors import (
    ConversationBusyError,
    ConversationNotFoundError,
    FieldViolation,
    InvalidArgumentError,
)
from core.identity import Principal
from stores.conversations.base import ConversationStore


def checked_id(conversation_id: str, field: str = "conversation_id") -> str:
    """`conversation_id`, or InvalidArgumentError saying what is wrong with it."""
    if not conversation_id:
        raise InvalidArgumentError([FieldViolation(field, "is required")])
    problem = conversation_id_problem(conversation_id)
    if problem is not None:
        raise InvalidArgumentError([FieldViolation(field, problem)])
    return conversation_id


def _title_problem(title: str) -> str | None:
    if len(title) > MAX_TITLE_CHARS:
        return f"is {len(title)} characters; at most {MAX_TITLE_CHARS}"
    if any(unicodedata.category(c) in ("Cc", "Cs") for c in title):
        return "must not hold control characters"
    return None


class Conversations:
    """The conversations' store and the gate that runs their tasks one at a time."""

    def __init__(self, store: ConversationStore, gate: BusyGate) -> None:
        self.store = store
        self.gate = gate

    async def create(
        self, caller: Principal, title: str = "", labels: Mapping[str, str] | None = None
    ) -> Conversation:
        violations = label_violations(labels or {})
        problem = _title_problem(title)
        if problem is not None:
            violations.append(FieldViolation("title", problem))
        if violations:
            raise InvalidArgumentError(violations)
        conversation = Conversation(
            new_conversation_id(), caller.tenant, caller.id, title, dict(labels or {})
        )
        await self.store.create(conversation)
        return conversation

    async def get(self, tenant: str, conversation_id: str) -> Conversation:
        return await self.store.get(tenant, checked_id(conversation_id))

    async def page(
        self, tenant: str, conversation_id: str, after: int, limit: int
    ) -> tuple[Conversation, list[ConversationMessage], str]:
        """The conversation, `limit` of its messages after number `after`, and the task
        running in it ("" when none)."""
        conversation = await self.get(tenant, conversation_id)
        messages = await self.store.messages(tenant, conversation_id, after, limit)
        return conversation, messages, await self.gate.running(tenant, conversation_id)

    async def list(self, query: ConversationQuery) -> list[Conversation]:
        return await self.store.list(query)

    async def delete(self, tenant: str, conversation_id: str) -> None:
        """Delete it with its messages; ConversationBusyError while a task of it runs or
        waits (its turn could not be kept)."""
        await self.get(tenant, conversation_id)
        busy = await self.gate.busy(tenant, conversation_id)
        if busy:
            raise ConversationBusyError(conversation_id, busy)
        if not await self.store.delete(tenant, conversation_id):
            raise ConversationNotFoundError(conversation_id)
