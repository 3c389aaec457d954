"""Where schedules and their runs are kept.

Concurrency: any number of replicas share one store. A replica `claim`s the schedules
whose `wake_at` has come and that no live lease holds (a lease ends at `claimed_until`;
a replica that dies holding one is taken over once it ends). `save_claimed` writes a
claimed schedule back only while the replica still holds it, and releases it. A run is
`add_run`'d once per `(schedule_id, due_at)`: the second add of the same due time, from
any replica, is refused (False), which is what makes a due time start one task.
"""

from __future__ import annotations

from datetime import datetime
from typing import Protocol

from records.schedules.model import Schedule, ScheduleRun


class ScheduleExistsError(Exception):
    """`create` of a schedule id that is taken (a retried create with a request id)."""


class ScheduleStore(Protocol):
    async def create(self, schedule: Schedule) -> None:
        """Store a new schedule; ScheduleExistsError when its id is taken."""
        ...

    async def get(self, tenant: str, schedule_id: str) -> Schedule | None: ...

    async def of_tenant(self, tenant: str) -> list[Schedule]:
        """The tenant's schedules, oldest first."""
        ...

    async def replace(self, schedule: Schedule, revision: str) -> bool:
        """Store `schedule` (with the revision it carries) in place of the one whose
        revision is `revision`; False when the stored one's revision is another (any
        write came since it was read) or it is gone."""
        ...

    async def delete(self, tenant: str, schedule_id: str) -> bool:
        """Delete the schedule and its runs; False when there was none."""
        ...

    async def claim(
        self, now: datetime, replica: str, until: datetime, limit: int
    ) -> list[Schedule]:
        """Up to `limit` active schedules whose wake_at ≤ now and whose lease is free or
        ended, leased to `replica` until `until`."""
        ...

    async def save_claimed(self, schedule: Schedule, replica: str) -> bool:
        """Write a schedule `replica` holds, with a new revision (its etag, the user's
        version, is left as it is), and release its lease; False (nothing written, the
        lease released) when the lease was lost or the schedule changed meanwhile (its
        revision): the caller then applies its bookkeeping onto the schedule as stored
        (`replace`). The new revision makes a write based on a read from before it fail
        its compare and set instead of putting old values back."""
        ...

    async def add_run(self, run: ScheduleRun) -> bool:
        """Record a due time's run; False when that due time has one already."""
        ...

    async def update_run(self, run: ScheduleRun) -> None: ...

    async def get_run(self, schedule_id: str, due_at: datetime) -> ScheduleRun | None: ...

    async def run_by_request(self, schedule_id: str, request_id: str) -> ScheduleRun | None:
        """The run TriggerSchedule started for `request_id`, if any."""
        ...

    async def runs(self, tenant: str, schedule_id: str, limit: int) -> list[ScheduleRun]:
        """The schedule's newest runs first."""
        ...

    async def sweep(self, before: datetime, limit: int) -> int:
        """Delete at most `limit` runs due before `before`, oldest first (retention,
        `stores.retention.base.Expiring`); how many went."""
        ...
