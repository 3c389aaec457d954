"""The inbox's history in this process (unit tests, and engines built without a database)."""

from __future__ import annotations

from collections.abc import Sequence

from records.inbox.history import ActionHistoryEntry, HistoryQuery, entry_cursor, entry_order
from records.paging import Page, TimeKeyCursor


class InMemoryActionHistory:
    """Entries in a dict by id; every method runs without awaiting (atomic)."""

    def __init__(self) -> None:
        self._entries: dict[str, ActionHistoryEntry] = {}

    async def record(self, entries: Sequence[ActionHistoryEntry]) -> None:
        for entry in entries:
            self._entries.setdefault(entry.entry_id, entry)

    async def list(self, query: HistoryQuery) -> Page[ActionHistoryEntry, TimeKeyCursor]:
        if query.limit <= 0:
            return Page(())
        after = query.after
        start = (after.created_at, after.item_id, after.key) if after is not None else None
        found = sorted(
            (
                e
                for e in self._entries.values()
                if query.matches(e) and (start is None or entry_order(e) > start)
            ),
            key=entry_order,
        )
        return Page.cut(found[: query.limit + 1], query.limit, entry_cursor)
