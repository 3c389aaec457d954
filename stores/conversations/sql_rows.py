"""Conversation rows as records: a turn's messages as stored (JSON) and back, and a
conversation row as a `Conversation`."""

from __future__ import annotations

import json
from typing import Any

from records.conversations import lineage as lin
from records.conversations.model import Conversation, ConversationMessage
from stores.sql.times import aware


def encode(messages: tuple[ConversationMessage, ...]) -> str:
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


def decode(
    task_id: str,
    first_index: int,
    messages: str,
    created_at: Any,
    turn: int,
    rewound: bool = False,
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
            turn=turn,
            rewound=rewound,
        )
        for offset, item in enumerate(json.loads(messages))
    ]


def decode_turn(row: Any, rewound: bool = False) -> list[ConversationMessage]:
    return decode(row.task_id, row.first_index, row.messages, row.created_at, row.turn, rewound)


def last_index(row: Any) -> int:
    """The number of the last message of a turn row."""
    return int(row.first_index + row.message_count - 1)


def is_plain(row: Any) -> bool:
    """A conversation row that is neither a fork nor rewound (read on the fast path)."""
    return row.lineage is None and row.hidden is None


def conversation(row: Any) -> Conversation:
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
        forked_from=row.forked_from,
        forked_at_turn=row.forked_at_turn,
        rewound_turns=lin.hidden_count(lin.decode_ranges(row.hidden)),
    )
