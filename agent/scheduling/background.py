"""What a process does in the background, besides running tasks: following cancellations,
steers and wakes published by other replicas, the waking pass, claiming woken and orphaned
tasks, and renewing its leases."""

from __future__ import annotations

import asyncio

import structlog

from agent.scheduling.admission import Admission
from agent.scheduling.execution import Runner
from agent.scheduling.parking import Parking
from agent.scheduling.takeover import Takeover, follow_cancellations, follow_steers
from agent.scheduling.waking import WakingPass
from stores.cancellations.base import CancelBus
from stores.steers.base import SteerBus

log = structlog.get_logger(__name__)


class Background:
    """The process's background jobs, started once and stopped when it closes."""

    def __init__(
        self,
        runner: Runner,
        admission: Admission,
        parking: Parking,
        waking: WakingPass,
        takeover: Takeover | None,
        cancellations: CancelBus,
        steers: SteerBus,
    ) -> None:
        self._runner = runner
        self._admission = admission
        self._parking = parking
        self._waking = waking
        self._takeover = takeover
        self._cancellations = cancellations
        self._steers = steers
        self._listener: asyncio.Task[None] | None = None
        self._steer_listener: asyncio.Task[None] | None = None
        self._jobs: list[asyncio.Task[None]] = []

    def listen_for_cancellations(self) -> None:
        """Start following cancellations and steers published by other replicas."""
        if self._listener is None:
            following = follow_cancellations(self._cancellations, self._runner)
            self._listener = asyncio.create_task(following, name="agentd-cancellations")
        if self._steer_listener is None:
            steering = follow_steers(self._steers, self._runner)
            self._steer_listener = asyncio.create_task(steering, name="agentd-steers")

    def supervise(self, max_running: int) -> None:
        """Start the waking pass (deadlines, lost wakes, turns, remote agents) and, if this
        process has a model to run tasks with, following wakes published by other
        replicas and claiming woken tasks (and orphaned ones); with shared leases, also
        renewing this process's leases."""
        if self._jobs:
            return
        self._jobs = [asyncio.create_task(self._waking.run(), name="agentd-waking")]
        takeover = self._takeover
        if takeover is None:  # no model: nothing runs here, so no lease to keep
            return
        self._jobs += [
            asyncio.create_task(takeover.take_over_orphans(max_running), name="agentd-takeover"),
            asyncio.create_task(self._follow_wakes(), name="agentd-wakes"),
        ]
        if self._parking.leases.shared:
            self._jobs.append(asyncio.create_task(takeover.keep_leases(), name="agentd-leases"))

    async def _follow_wakes(self) -> None:
        """Claim each task another replica woke without room for it, if there is room."""
        try:
            async for tenant, task_id in self._parking.bus.subscribe():
                if self._admission.room <= 0:
                    continue
                try:
                    await self._parking.woken(tenant, task_id)
                except Exception:  # the takeover pass claims it
                    log.exception("could not take a woken task", task_id=task_id)
        except Exception:
            log.exception("wake listener stopped")

    async def stop(self) -> None:
        if self._takeover is not None:
            self._takeover.closing = True
        jobs = [t for t in (self._listener, self._steer_listener, *self._jobs) if t is not None]
        for job in jobs:
            job.cancel()
        if jobs:
            await asyncio.wait(jobs, timeout=5)
