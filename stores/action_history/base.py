"""Where the inbox's history is kept: one entry per step of each wait for a person
(opened, reminded, escalated, answered, timed out), kept after the wait and its task are
gone, until retention sweeps it (`stores.retention`).

Contract (tests/contract/test_action_history.py runs it in memory, on SQLite and on
PostgreSQL):
- `record` keeps each entry unless one of its id is kept already: a step recorded again
  (a process died after the step and took it again) stays one entry, as first recorded.
  The entries of one call are kept all or none; on SQL through the database's one writer
  (group commit), returning once committed.
- `list` returns a page of a tenant's entries that `HistoryQuery.matches`, oldest first (by
  time, then task id, then entry id), after the query's cursor; its next cursor is set when
  more follow. Nothing of another tenant is ever read.
- Entries are never changed; concurrent writers of one step keep one of them.

`InMemoryActionHistory` serves one process (and the unit tests); `SqlActionHistory`
(SQLite or PostgreSQL) is what replicas share.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from records.inbox.history import ActionHistoryEntry, HistoryQuery
from records.paging import Page, TimeKeyCursor


class ActionHistoryStore(Protocol):
    async def record(self, entries: Sequence[ActionHistoryEntry]) -> None:
        """Keep `entries` (those whose id is kept already are left as they are)."""
        ...

    async def list(self, query: HistoryQuery) -> Page[ActionHistoryEntry, TimeKeyCursor]:
        """A page of `query.limit` entries after `query.after`, oldest first."""
        ...
