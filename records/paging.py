"""A page of a list and the typed cursor where the next page starts.

Every list agentd serves is read by keyset: a page ends at its last item, and the next
page is asked for "after" that item's key. The key's shape depends on the list's order:

- `TimeCursor`: newest first by creation time, ties by id (tasks, conversations);
- `TimeKeyCursor`: oldest first by creation time, ties by an id, then a key within it
  (waits for a person: by task, then slot);
- `PositionCursor`: by a growing position (audit rows, a conversation's messages);
- `KeyCursor`: by a group, then an id (agents: files before those made through the API);
  a list ordered by id alone uses group 0.

Each store's list takes the cursor a page starts after and the page's size, and returns
the page with the cursor of the next (`Page`); it reads one row more than a page to learn
whether more follow (`Page.cut`). The services over the stores pass the page on, and the
transport alone turns a cursor into an opaque page token and back (`server.convert.pages`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class TimeCursor:
    """After the item created at `created_at` whose id is `item_id` (newest first)."""

    created_at: datetime
    item_id: str


@dataclass(frozen=True, slots=True)
class TimeKeyCursor:
    """After the item created at `created_at` whose id is `item_id` and key within it `key`
    (oldest first)."""

    created_at: datetime
    item_id: str
    key: str


@dataclass(frozen=True, slots=True)
class PositionCursor:
    """After position `position` (a row id, a message index)."""

    position: int


@dataclass(frozen=True, slots=True)
class KeyCursor:
    """After the item `item_id` of group `group` (0 for a list ordered by id alone)."""

    group: int
    item_id: str


Cursor = TimeCursor | TimeKeyCursor | PositionCursor | KeyCursor


def id_cursor(item_id: str) -> KeyCursor:
    """The cursor after `item_id` in a list ordered by id alone (group 0)."""
    return KeyCursor(0, item_id)


def id_after(after: KeyCursor | None) -> str:
    """The id a list ordered by id alone starts after: the cursor's ("" for None, which
    sorts before every id). The cursor's group is not looked at."""
    return after.item_id if after is not None else ""


C = TypeVar("C", bound=Cursor)


@dataclass(frozen=True, slots=True)
class Page(Generic[T, C]):
    """One page of a list: its items, in the list's order, and where the next starts (a
    cursor of the kind the list's query takes)."""

    items: tuple[T, ...]
    next: C | None = None
    """The cursor of the next page; None when this page is the last."""

    @classmethod
    def cut(cls, found: Sequence[T], size: int, cursor_of: Callable[[T], C]) -> Page[T, C]:
        """The page of `found`, read as `size` + 1 items (one more than the page, to learn
        whether more follow); its next cursor is `cursor_of` its last item when they do."""
        items = tuple(found[:size])
        return cls(items, cursor_of(items[-1]) if len(found) > size and items else None)
