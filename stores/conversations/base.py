"""Where conversations are kept: each tenant's conversations, their turns and summaries.

Contract:
- Every method takes the tenant; another tenant's conversation is reported exactly
  like one that does not exist (`ConversationNotFoundError`, or None/False where
  the method says so).
- `create` stores a new, empty conversation (ValueError if the id is taken).
- `get` returns the conversation with its counts (messages, turns, tokens) and its
  running summary.
- `list` returns a page of a caller's own conversations (created_by == owner), newest
  first (ties by id, descending): `query.limit` of them after the query's cursor, with
  the cursor of the next page when more follow.
- `append_turn` adds a task's messages as the next turn, numbering them after the
  conversation's last message, atomically: all of the turn or none of it. A task
  adds at most one turn: a second append for the same task id changes nothing and
  returns False (so a task that ends twice, e.g. on two replicas around a
  takeover, is in its conversation exactly once). Concurrent appends of different
  tasks never share a number.
- `messages` pages through the messages after a number, oldest first; `recent`
  returns the messages after a number of the newest `turns` turns that have any
  and start before message `before` (when given), oldest first (whole turns but
  for one cut by the number): a task reads further back with it, a page at a time.
- `snapshot` is `get` and `recent` after its summary, read together in one
  statement where the backend can (what a task of the conversation starts from).
- A conversation's counts (messages, turns, tokens) move with each turn, in the
  same transaction.
- `set_summary` replaces the running summary only when it covers more messages
  than the stored one (a summary never goes back); returns whether it did.
- `delete` removes a conversation and its turns, at once; False when there was none.
"""

from __future__ import annotations

from typing import Protocol

from records.conversations.model import Conversation, ConversationMessage, ConversationQuery, Turn
from records.paging import Page, TimeCursor


class ConversationStore(Protocol):
    async def create(self, conversation: Conversation) -> None: ...

    async def get(self, tenant: str, conversation_id: str) -> Conversation: ...

    async def append_turn(self, tenant: str, conversation_id: str, turn: Turn) -> bool: ...

    async def messages(
        self, tenant: str, conversation_id: str, after: int, limit: int
    ) -> list[ConversationMessage]: ...

    async def recent(
        self, tenant: str, conversation_id: str, after: int, turns: int, before: int = ...
    ) -> list[ConversationMessage]: ...

    async def snapshot(
        self, tenant: str, conversation_id: str, turns: int
    ) -> tuple[Conversation, list[ConversationMessage]]: ...

    async def set_summary(
        self, tenant: str, conversation_id: str, summary: str, through: int
    ) -> bool: ...

    async def delete(self, tenant: str, conversation_id: str) -> bool: ...

    async def list(self, query: ConversationQuery) -> Page[Conversation, TimeCursor]: ...


def conversation_page(found: list[Conversation], size: int) -> Page[Conversation, TimeCursor]:
    """The page of `found` (read as `size` + 1, newest first)."""
    return Page.cut(found, size, lambda c: TimeCursor(c.created_at, c.conversation_id))
