"""Schedules and their runs in SQL (SQLite or PostgreSQL): `stores.schedules.tables`,
migration 0031.

A claim on PostgreSQL is one transaction that locks the due rows it picks and skips those
another replica's claim holds (`FOR UPDATE SKIP LOCKED`), so replicas share the due
schedules instead of queueing behind each other. On SQLite (one writer at a time) a claim
reads the due rows, then takes each with a conditional update (compare and set on its
lease), so a row another claim took in between is left out.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime
from typing import Any

import sqlalchemy.exc
from sqlalchemy import and_, delete, or_, select, tuple_, update

from records.schedules.codec import schedule_from_json, schedule_to_json
from records.schedules.model import RunState, Schedule, ScheduleRun, ScheduleState, new_etag
from stores.schedules.base import ScheduleExistsError
from stores.schedules.tables import schedule_runs, schedules
from stores.sql.database import Database
from stores.sql.times import aware

_S = schedules.c
_R = schedule_runs.c
ACTIVE = ScheduleState.ACTIVE.value


def _schedule(row: Any) -> Schedule:
    return schedule_from_json(json.loads(row.data))


def _columns(schedule: Schedule) -> dict[str, Any]:
    return {
        "tenant": schedule.tenant,
        "state": schedule.state.value,
        "wake_at": schedule.wake_at,
        "etag": schedule.etag,
        "revision": schedule.revision,
        "data": json.dumps(schedule_to_json(schedule)),
    }


def _run(row: Any) -> ScheduleRun:
    return ScheduleRun(
        schedule_id=row.schedule_id,
        tenant=row.tenant,
        due_at=aware(row.due_at),
        state=RunState(row.state),
        task_id=row.task_id,
        reason=row.reason,
        request_id=row.request_id,
        created_at=aware(row.created_at),
    )


def _run_row(run: ScheduleRun) -> dict[str, Any]:
    return {
        "schedule_id": run.schedule_id,
        "due_at": run.due_at,
        "tenant": run.tenant,
        "state": run.state.value,
        "task_id": run.task_id,
        "reason": run.reason,
        "request_id": run.request_id,
        "created_at": run.created_at,
    }


class SqlScheduleStore:
    """ScheduleStore on a database (owned by the caller); writes through its writer."""

    def __init__(self, database: Database) -> None:
        self._engine = database.engine
        self._writer = database.writer
        self._postgres = database.dialect == "postgresql"

    async def create(self, schedule: Schedule) -> None:
        row = {
            "schedule_id": schedule.schedule_id,
            "claimed_by": "",
            "claimed_until": None,
            "created_at": schedule.created_at,
            **_columns(schedule),
        }
        try:
            await self._writer.insert(schedules, row)
        except sqlalchemy.exc.IntegrityError:
            raise ScheduleExistsError(schedule.schedule_id) from None

    async def get(self, tenant: str, schedule_id: str) -> Schedule | None:
        query = select(schedules).where(_S.schedule_id == schedule_id, _S.tenant == tenant)
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return _schedule(row) if row is not None else None

    async def of_tenant(self, tenant: str) -> list[Schedule]:
        query = select(schedules).where(_S.tenant == tenant).order_by(_S.created_at, _S.schedule_id)
        async with self._engine.connect() as connection:
            return [_schedule(row) for row in await connection.execute(query)]

    async def replace(self, schedule: Schedule, revision: str) -> bool:
        statement = (
            update(schedules)
            .where(
                _S.schedule_id == schedule.schedule_id,
                _S.tenant == schedule.tenant,
                _S.revision == revision,
            )
            .values(**_columns(schedule))
        )
        return bool(await self._writer.execute(statement))

    async def delete(self, tenant: str, schedule_id: str) -> bool:
        gone = await self._writer.execute(
            delete(schedules).where(_S.schedule_id == schedule_id, _S.tenant == tenant)
        )
        if gone:
            await self._writer.execute(delete(schedule_runs).where(_R.schedule_id == schedule_id))
        return bool(gone)

    async def claim(
        self, now: datetime, replica: str, until: datetime, limit: int
    ) -> list[Schedule]:
        free = or_(_S.claimed_until.is_(None), _S.claimed_until <= now)
        query = (
            select(schedules)
            .where(_S.state == ACTIVE, _S.wake_at <= now, free)
            .order_by(_S.wake_at)
            .limit(limit)
        )
        if self._postgres:
            async with self._engine.begin() as connection:
                rows = list(await connection.execute(query.with_for_update(skip_locked=True)))
                ids = [row.schedule_id for row in rows]
                if ids:
                    await connection.execute(
                        update(schedules)
                        .where(_S.schedule_id.in_(ids))
                        .values(claimed_by=replica, claimed_until=until)
                    )
            return [_schedule(row) for row in rows]
        async with self._engine.connect() as connection:
            rows = list(await connection.execute(query))
        claimed: list[Schedule] = []
        for row in rows:  # compare and set: another replica may take it in between
            same = and_(_S.claimed_by == row.claimed_by, free, _S.revision == row.revision)
            statement = (
                update(schedules)
                .where(_S.schedule_id == row.schedule_id, same)
                .values(claimed_by=replica, claimed_until=until)
            )
            if await self._writer.execute(statement):
                claimed.append(_schedule(row))
        return claimed

    async def save_claimed(self, schedule: Schedule, replica: str) -> bool:
        fresh = replace(schedule, revision=new_etag())  # a write on the one read before fails
        held = and_(_S.schedule_id == schedule.schedule_id, _S.claimed_by == replica)
        written = await self._writer.execute(
            update(schedules)
            .where(held, _S.revision == schedule.revision)
            .values(claimed_by="", claimed_until=None, **_columns(fresh))
        )
        if not written:  # changed meanwhile (an update, a pause): only let go of it
            await self._writer.execute(
                update(schedules).where(held).values(claimed_by="", claimed_until=None)
            )
        return bool(written)

    async def add_run(self, run: ScheduleRun) -> bool:
        try:
            await self._writer.insert(schedule_runs, _run_row(run))
        except sqlalchemy.exc.IntegrityError:  # another replica recorded it first
            return False
        return True

    async def update_run(self, run: ScheduleRun) -> None:
        row = _run_row(run)
        statement = (
            update(schedule_runs)
            .where(_R.schedule_id == run.schedule_id, _R.due_at == run.due_at)
            .values(**{k: v for k, v in row.items() if k not in ("schedule_id", "due_at")})
        )
        await self._writer.execute(statement)

    async def get_run(self, schedule_id: str, due_at: datetime) -> ScheduleRun | None:
        query = select(schedule_runs).where(_R.schedule_id == schedule_id, _R.due_at == due_at)
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return _run(row) if row is not None else None

    async def run_by_request(self, schedule_id: str, request_id: str) -> ScheduleRun | None:
        query = select(schedule_runs).where(
            _R.schedule_id == schedule_id, _R.request_id == request_id
        )
        async with self._engine.connect() as connection:
            row = (await connection.execute(query)).first()
        return _run(row) if row is not None else None

    async def runs(self, tenant: str, schedule_id: str, limit: int) -> list[ScheduleRun]:
        query = (
            select(schedule_runs)
            .where(_R.schedule_id == schedule_id, _R.tenant == tenant)
            .order_by(_R.due_at.desc())
            .limit(limit)
        )
        async with self._engine.connect() as connection:
            return [_run(row) for row in await connection.execute(query)]

    name = "schedule runs"

    async def sweep(self, before: datetime, limit: int) -> int:
        picked = (
            select(_R.schedule_id, _R.due_at)
            .where(_R.due_at < before)
            .order_by(_R.due_at)
            .limit(limit)
        )
        async with self._engine.connect() as connection:
            keys = [(row.schedule_id, row.due_at) for row in await connection.execute(picked)]
        if not keys:
            return 0
        statement = delete(schedule_runs).where(tuple_(_R.schedule_id, _R.due_at).in_(keys))
        return await self._writer.execute(statement)
