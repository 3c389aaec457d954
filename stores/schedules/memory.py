"""ScheduleStore in memory, for one process (tests, the embedded server)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from records.schedules.model import Schedule, ScheduleRun, ScheduleState, new_etag
from stores.schedules.base import ScheduleExistsError


class MemoryScheduleStore:
    def __init__(self) -> None:
        self._schedules: dict[str, Schedule] = {}
        self._leases: dict[str, tuple[str, datetime]] = {}
        self._runs: dict[tuple[str, datetime], ScheduleRun] = {}

    async def create(self, schedule: Schedule) -> None:
        if schedule.schedule_id in self._schedules:
            raise ScheduleExistsError(schedule.schedule_id)
        self._schedules[schedule.schedule_id] = schedule

    async def get(self, tenant: str, schedule_id: str) -> Schedule | None:
        found = self._schedules.get(schedule_id)
        return found if found is not None and found.tenant == tenant else None

    async def of_tenant(self, tenant: str) -> list[Schedule]:
        return [s for s in self._schedules.values() if s.tenant == tenant]

    async def replace(self, schedule: Schedule, revision: str) -> bool:
        stored = self._schedules.get(schedule.schedule_id)
        if stored is None or stored.tenant != schedule.tenant or stored.revision != revision:
            return False
        self._schedules[schedule.schedule_id] = schedule
        return True

    async def delete(self, tenant: str, schedule_id: str) -> bool:
        if await self.get(tenant, schedule_id) is None:
            return False
        del self._schedules[schedule_id]
        self._leases.pop(schedule_id, None)
        for key in [k for k in self._runs if k[0] == schedule_id]:
            del self._runs[key]
        return True

    async def claim(
        self, now: datetime, replica: str, until: datetime, limit: int
    ) -> list[Schedule]:
        claimed: list[Schedule] = []
        for schedule in self._schedules.values():
            if len(claimed) >= limit:
                break
            lease = self._leases.get(schedule.schedule_id)
            free = lease is None or lease[1] <= now
            due = schedule.wake_at is not None and schedule.wake_at <= now
            if free and due and schedule.state is ScheduleState.ACTIVE:
                self._leases[schedule.schedule_id] = (replica, until)
                claimed.append(schedule)
        return claimed

    async def save_claimed(self, schedule: Schedule, replica: str) -> bool:
        lease = self._leases.get(schedule.schedule_id)
        stored = self._schedules.get(schedule.schedule_id)
        if lease is None or lease[0] != replica or stored is None:
            return False
        del self._leases[schedule.schedule_id]
        if stored.revision != schedule.revision:
            return False
        self._schedules[schedule.schedule_id] = replace(schedule, revision=new_etag())
        return True

    async def add_run(self, run: ScheduleRun) -> bool:
        key = (run.schedule_id, run.due_at)
        if key in self._runs:
            return False
        self._runs[key] = run
        return True

    async def update_run(self, run: ScheduleRun) -> None:
        self._runs[(run.schedule_id, run.due_at)] = run

    async def get_run(self, schedule_id: str, due_at: datetime) -> ScheduleRun | None:
        return self._runs.get((schedule_id, due_at))

    async def run_by_request(self, schedule_id: str, request_id: str) -> ScheduleRun | None:
        for run in self._runs.values():
            if run.schedule_id == schedule_id and run.request_id == request_id:
                return run
        return None

    async def runs(self, tenant: str, schedule_id: str, limit: int) -> list[ScheduleRun]:
        found = [r for r in self._runs.values() if r.schedule_id == schedule_id]
        found = [r for r in found if r.tenant == tenant]
        return sorted(found, key=lambda r: r.due_at, reverse=True)[:limit]

    name = "schedule runs"

    async def sweep(self, before: datetime, limit: int) -> int:
        old = sorted(key for key, run in self._runs.items() if run.due_at < before)[:limit]
        for key in old:
            del self._runs[key]
        return len(old)
