"""Schedules on one server: the service ScheduleService's RPCs call and the firing loop
every replica runs over the shared store (docs/schedules.md)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from functools import partial

from agent.definitions.catalog import Agents
from agent.definitions.selection import lookup
from agent.engine import Engine
from records.schedules.timing import Clock, SystemClock
from server.services.scheduled.firing import Firing, FiringSettings
from server.services.scheduled.service import ScheduleService
from server.services.scheduled.standing import Standing
from server.settings import Settings
from server.wiring.role_table import role_table
from stores.build import DurableStores
from stores.schedules.sql import SqlScheduleStore


@dataclass
class Schedules:
    service: ScheduleService
    firing: Firing

    @classmethod
    def build(
        cls,
        settings: Settings,
        engine: Engine,
        durable: DurableStores,
        agents: Agents | None,
        clock: Clock | None = None,
    ) -> Schedules:
        """On the durable database; with authentication on (AGENTD_AUTH), each run's
        principal must still hold an active API key when it held any."""
        clock = clock or SystemClock()
        store = SqlScheduleStore(durable.database)
        standing = Standing.of(settings.auth, durable.api_keys)
        timing = FiringSettings(
            lease_seconds=settings.schedule_lease_seconds,
            tick_seconds=settings.schedule_tick_seconds,
            max_refusals=settings.schedule_max_refusals,
        )
        firing = Firing(store, engine, standing, clock, engine.replica, timing)
        service = ScheduleService(
            store,
            firing,
            partial(lookup, agents),
            role_table(settings),
            clock,
            min_interval_seconds=settings.schedule_min_interval_seconds,
            pending_trigger_seconds=settings.task_timeout_seconds,
        )
        return cls(service, firing)

    def start(self) -> asyncio.Task[None]:
        """The firing loop (cancelled when the server stops; a schedule it held is taken
        over by another replica once its lease ends)."""
        return asyncio.create_task(self.firing.held(), name="agentd-schedules")
