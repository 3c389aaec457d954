"""Retention of durable records: those of one kind kept for a while only, and swept.

Contract (tests/contract/test_retention.py runs it on SQLite and PostgreSQL):
- `sweep(before, limit)` deletes at most `limit` of the records that expired before
  `before` and returns how many went: 0 once none is left, so a caller repeats it until
  a batch comes back short. Each call is one short transaction.
- Nothing of an unfinished task tree is swept: a task's record goes only once the task
  and the root of its tree have finished (COMPLETED, FAILED or CANCELLED); an artifact
  version only while its tree's root task is not known to be unfinished.
- Safe to call from several replicas at once: on PostgreSQL each sweep takes rows no
  other sweep holds (`FOR UPDATE SKIP LOCKED`), so none waits for, or repeats, another's
  work; on SQLite the database's one writer orders them.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol


class Expiring(Protocol):
    name: str
    """What the records are, for the log (`task records`, `artifact versions`)."""

    async def sweep(self, before: datetime, limit: int) -> int:
        """Delete at most `limit` records that expired before `before`; how many went."""
        ...
