"""Where tasks' durable traces are kept (`records.traces.model`).

Contract (tests/contract/test_trace_store.py runs it on memory, SQLite and PostgreSQL):
- `write` keeps a batch of one task's entries and the messages they name; the first write
  of a task keeps its owner. A message id already kept for the task is kept once; an
  entry id already kept is kept once (a retried write). On SQL it goes through the
  database's one writer (group commit) and returns once committed.
- `head` is what is kept of a task (None: nothing), with its size so far.
- `page` reads a task's entries in entry-id order after `after` (at most `limit`), with
  the messages they name that no entry before `after` named.
- `children` are the task ids whose trace names `task_id` as their parent, oldest first.
- `sweep` (retention) deletes the traces not written since `before` (their entries,
  messages and owner; a task parked for long keeps its trace while it runs), at most
  `limit` tasks per call, the longest unwritten first; `forget_user` deletes
  every trace of a tenant's user. Both return how many tasks' traces went.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol

from records.traces.model import TracedMessage, TraceEntry, TraceHead, TraceOwner, TracePage


class TraceStore(Protocol):
    async def write(
        self,
        owner: TraceOwner,
        entries: Sequence[TraceEntry],
        messages: Sequence[TracedMessage],
        *,
        cut: bool = False,
        fresh: bool = False,
    ) -> None:
        """Keep `entries` and `messages` of `owner.task_id` (`cut`: the task's cap was
        reached with this batch; `fresh`: the writer knows nothing of the task was kept
        before, so the store need not read what was)."""
        ...

    async def head(self, task_id: str) -> TraceHead | None: ...

    async def page(self, task_id: str, after: str, limit: int) -> TracePage: ...

    async def children(self, task_id: str) -> list[str]: ...

    async def sweep(self, before: datetime, limit: int) -> int: ...

    async def forget_user(self, tenant: str, user: str) -> int: ...
