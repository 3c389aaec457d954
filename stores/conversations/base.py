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
  A conversation whose turns a fork still shares is gone for every caller at once,
  but its turns stay stored until no fork shares them.

Forks and rewinds (`records.conversations.lineage`):
- `fork` makes a new conversation (the given record's id, owner, title, labels) that
  shares the original's turns 1..`after_turn` without copying any: its counts are
  the original's at that turn, its hidden (rewound) turns the original's up to it,
  and its summary the latest the original kept that covers no message after the
  turn's last (see `set_summary`), or none. It costs the same whatever the number of
  turns shared. Its own turns are numbered after the turn. ValueError for a turn
  outside 1..turn_count; InvalidArgumentError for a fork that would read from more
  than MAX_LINEAGE conversations.
- `rewind` hides the turns after `after_turn` (0: all of them) from `snapshot` and
  `recent`; `messages` still returns them, marked `rewound`. Counts do not change and
  new turns are numbered after the last. The summary goes back to the latest kept
  one that covers no message after the point (only a rewind moves it back); kept
  summaries past the point are dropped. ValueError for a turn outside
  0..turn_count; InvalidArgumentError past MAX_HIDDEN_RANGES separate ranges.
- `turn_of` is the turn of the conversation's history a task added (shared turns
  included), 0 when none.
- Every message read carries its turn number; `snapshot` and `recent` never return
  a rewound one.
- `set_summary` also keeps each summary it stores (with the number it covers through),
  in the same transaction: what `fork` and `rewind` go back to.
"""

from __future__ import annotations

from typing import Protocol

from core.errors import FieldViolation, InvalidArgumentError
from records.conversations.lineage import MAX_HIDDEN_RANGES, MAX_LINEAGE
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

    async def fork(
        self, tenant: str, conversation_id: str, after_turn: int, fork: Conversation
    ) -> Conversation: ...

    async def rewind(self, tenant: str, conversation_id: str, after_turn: int) -> Conversation: ...

    async def turn_of(self, tenant: str, conversation_id: str, task_id: str) -> int: ...


def conversation_page(found: list[Conversation], size: int) -> Page[Conversation, TimeCursor]:
    """The page of `found` (read as `size` + 1, newest first)."""
    return Page.cut(found, size, lambda c: TimeCursor(c.created_at, c.conversation_id))


def lineage_too_long(conversation_id: str) -> InvalidArgumentError:
    problem = (
        f"is a fork reading {MAX_LINEAGE} conversations' turns, as many as a fork may; "
        "fork one nearer the original"
    )
    return InvalidArgumentError([FieldViolation("conversation_id", problem)])


def too_many_rewinds(conversation_id: str) -> InvalidArgumentError:
    problem = (
        f"has {MAX_HIDDEN_RANGES} separate ranges of rewound turns, as many as one may; "
        "fork it instead"
    )
    return InvalidArgumentError([FieldViolation("conversation_id", problem)])


def point_problem(after_turn: int, turn_count: int, lowest: int) -> str | None:
    """Why turn `after_turn` is no point of a conversation of `turn_count` turns."""
    if lowest <= after_turn <= turn_count:
        return None
    return f"is {after_turn}; the conversation has turns {lowest} to {turn_count}"
