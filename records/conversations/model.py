"""Conversations as the engine and the stores know them.

A conversation belongs to one tenant. It is a sequence of messages numbered 1, 2,
3, ... in the order they were added; the messages of one task form a turn (the
caller's message, the tool calls the task made, its final answer), added once,
when the task ends. Older messages may be folded into a running summary:
`summarized_through` is the number of the last message the summary covers.

A fork shares its original's turns up to a turn and numbers its own after them; a
rewind takes turns out of what later tasks are sent while they stay in the history
(`records.conversations.lineage`).
"""

from __future__ import annotations

import enum
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal

from records.paging import TimeCursor
from records.tasks import utcnow

CONVERSATION_ID = re.compile(r"^conv_[0-9a-f]{24}$")
MAX_TITLE_CHARS = 200
MAX_STORED_CHARS = 16_000
"""A message's content is stored up to this many characters (cut with a marker)."""
MAX_TOOL_MESSAGES = 32
"""Tool calls kept in one turn; more are counted in a note, not kept."""
MAX_STEER_MESSAGES = 8
"""Steers (user messages added while the task worked) kept in one turn; more are counted
in a note, not kept."""
MAX_TURN_MESSAGES = MAX_TOOL_MESSAGES + MAX_STEER_MESSAGES + 2
"""Messages of one turn at most: the caller's, the tool calls and steers kept, the answer."""

MessageRole = Literal["user", "assistant", "tool"]


class BusyPolicy(enum.Enum):
    """What a new task of a conversation does while another of its tasks runs or waits."""

    REJECT = "reject"
    """Refused (`ConversationBusyError`); nothing is stored."""
    ENQUEUE = "enqueue"
    """Accepted; it starts once the tasks accepted before it have ended."""
    INTERRUPT = "interrupt"
    """The running task is cancelled; the new one starts once it has ended, first in line."""
    STEER = "steer"
    """No new task: its text is added to the running (or waiting) task as a steer."""
    FOLLOW_UP = "follow_up"
    """Accepted as the next turn, started when the current one ends; one may wait."""


def new_conversation_id() -> str:
    return "conv_" + secrets.token_hex(12)


def conversation_id_problem(value: str) -> str | None:
    """Why `value` cannot be a conversation id, or None when it can."""
    if not CONVERSATION_ID.fullmatch(value):
        return "is not a conversation id (conv_ and 24 hexadecimal digits)"
    return None


def cut(text: str, limit: int = MAX_STORED_CHARS) -> str:
    """`text`, or its first `limit` characters and a marker saying how much was cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n[… {len(text) - limit} more characters not kept]"


@dataclass(frozen=True, slots=True)
class ConversationMessage:
    """One message of a conversation."""

    role: MessageRole
    content: str
    task_id: str
    """The task whose turn the message belongs to."""
    index: int = 0
    """Its number in the conversation (1, 2, 3, ...); 0 until stored."""
    tool_name: str = ""
    """For a tool message: the tool called."""
    arguments: str = ""
    """For a tool message: the call's arguments as JSON text."""
    tokens: int = 0
    """Its size in tokens, as counted for the model of its task when it was added."""
    created_at: datetime = field(default_factory=utcnow)
    counted_with: str = ""
    """The encoding `tokens` was counted with ("o200k_base", "estimate", ...)."""
    turn: int = 0
    """The number of its turn (1, 2, 3, ...); 0 until stored."""
    rewound: bool = False
    """Its turn was taken back (a rewind): kept in the history, no longer sent to tasks."""


@dataclass(frozen=True, slots=True)
class Turn:
    """What one task added to its conversation: its messages, in order."""

    task_id: str
    messages: tuple[ConversationMessage, ...]

    @property
    def tokens(self) -> int:
        return sum(m.tokens for m in self.messages)


@dataclass(frozen=True, slots=True)
class Conversation:
    """A conversation and what is known about it as a whole."""

    conversation_id: str
    tenant: str
    created_by: str
    title: str = ""
    labels: Mapping[str, str] = field(default_factory=dict)
    created_at: datetime = field(default_factory=utcnow)
    updated_at: datetime = field(default_factory=utcnow)
    """When it was created or last got a turn."""
    message_count: int = 0
    turn_count: int = 0
    total_tokens: int = 0
    """Tokens of all its messages, as counted when each was added."""
    summary: str = ""
    """The running summary of its oldest messages (empty when there is none)."""
    summarized_through: int = 0
    """Messages 1..summarized_through are covered by `summary`."""
    forked_from: str = ""
    """For a fork: the conversation it was forked from ("" for any other)."""
    forked_at_turn: int = 0
    """For a fork: the last turn it shares with `forked_from`."""
    rewound_turns: int = 0
    """Turns taken back by rewinds (still in the history, marked, never sent to tasks)."""


@dataclass(frozen=True, slots=True)
class ConversationQuery:
    """Which conversations to list: a caller's own, newest first."""

    tenant: str
    owner: str
    limit: int = 50
    """The page's size."""
    after: TimeCursor | None = None
    """Where the page starts: after the last conversation of the previous page."""
