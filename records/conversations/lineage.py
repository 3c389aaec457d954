"""Forks and rewinds as turn ranges: which stored turns make up a conversation's history.

A conversation stores only the turns it added itself. A fork shares its original's
turns up to a point without copying them: its `Lineage` names the conversations
whose stored turns it reads, oldest first, each with the last turn it takes from it
(a fork at turn 9 of a fork made at turn 5 of `root` reads `((root, 5), (child, 9))`),
and its own turns are numbered after the last of them. Since each conversation
stores only the turns after its own fork point, the turns an ancestor lends are
simply its stored turns up to its bound: reading a fork's history is a few range
conditions on the turn key, never a copy, and a fork costs the same whatever the
length of what it shares.

A rewind hides turn ranges (`Ranges`, inclusive, sorted, never overlapping or
touching) from what the conversation's tasks are sent; the turns stay in its history
(marked rewound) and keep their numbers, and new turns are numbered after the last.

Both are bounded, so that every read names a bounded number of ranges: a fork may
have `MAX_LINEAGE` ancestors, a conversation `MAX_HIDDEN_RANGES` hidden ranges.
Pure functions, no I/O: the stores share them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

MAX_LINEAGE = 32
"""Conversations a fork may read shared turns from (a fork of a fork of ...)."""
MAX_HIDDEN_RANGES = 32
"""Separate ranges of rewound turns a conversation may hold."""
LAST_TURN = 2**62
"""The bound of a conversation's own turns: all of them."""

Lineage = tuple[tuple[str, int], ...]
"""(conversation id, last turn shared from it), oldest first."""
Ranges = tuple[tuple[int, int], ...]
"""Inclusive turn ranges, sorted, apart from one another."""


@dataclass(frozen=True, slots=True)
class Segment:
    """Turns `first`..`last` of the history, as stored under `conversation_id`."""

    conversation_id: str
    first: int
    last: int


def segments(conversation_id: str, lineage: Lineage, hidden: Ranges = ()) -> list[Segment]:
    """The stored turns that make up a conversation's history, oldest first: each
    ancestor's up to its bound, then its own; without the `hidden` ranges."""
    parts: list[Segment] = []
    first = 1
    for ancestor, through in lineage:
        if through >= first:
            parts.append(Segment(ancestor, first, through))
        first = max(first, through + 1)
    parts.append(Segment(conversation_id, first, LAST_TURN))
    for low, high in hidden:
        parts = [
            piece
            for part in parts
            for piece in (
                Segment(part.conversation_id, part.first, min(part.last, low - 1)),
                Segment(part.conversation_id, max(part.first, high + 1), part.last),
            )
            if piece.first <= piece.last
        ]
    return parts


def owner_of(conversation_id: str, lineage: Lineage, turn: int) -> str:
    """The conversation that stores `turn` of the history."""
    for part in segments(conversation_id, lineage):
        if part.first <= turn <= part.last:
            return part.conversation_id
    return conversation_id


def own_start(lineage: Lineage) -> int:
    """The number of the first turn a conversation stores itself."""
    return (lineage[-1][1] if lineage else 0) + 1


def forked(parent_id: str, parent_lineage: Lineage, at_turn: int) -> Lineage:
    """The lineage of a fork of `parent_id` after turn `at_turn`: the parent's, cut at
    the turn, and the parent itself when it stores any turn up to it."""
    kept: list[tuple[str, int]] = []
    first = 1
    for ancestor, through in parent_lineage:
        if first > at_turn:
            break
        kept.append((ancestor, min(through, at_turn)))
        first = through + 1
    if at_turn >= first:
        kept.append((parent_id, at_turn))
    return tuple(kept)


def with_hidden(hidden: Ranges, first: int, last: int) -> Ranges:
    """`hidden` with turns `first`..`last` added, merging ranges that overlap or touch."""
    merged: list[tuple[int, int]] = []
    for low, high in sorted((*hidden, (first, last))):
        if merged and low <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], high))
        else:
            merged.append((low, high))
    return tuple(merged)


def clipped(hidden: Ranges, through: int) -> Ranges:
    """The ranges of `hidden` within turns 1..`through` (what a fork there inherits)."""
    return tuple((low, min(high, through)) for low, high in hidden if low <= through)


def is_hidden(hidden: Ranges, turn: int) -> bool:
    return any(low <= turn <= high for low, high in hidden)


def hidden_count(hidden: Ranges) -> int:
    """How many turns `hidden` holds."""
    return sum(high - low + 1 for low, high in hidden)


def encode(pairs: Lineage | Ranges) -> str | None:
    """As stored: JSON text, or None for none (the common case, which reads take fast)."""
    return json.dumps([list(p) for p in pairs], separators=(",", ":")) if pairs else None


def decode_lineage(text: str | None) -> Lineage:
    return tuple((str(a), int(b)) for a, b in json.loads(text)) if text else ()


def decode_ranges(text: str | None) -> Ranges:
    return tuple((int(a), int(b)) for a, b in json.loads(text)) if text else ()
