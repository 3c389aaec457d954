"""The loop every replica runs to deliver what a store holds to be delivered: claim what is
due (each claim held by one replica at a time, for a lease), work each claim in a task of
its own while renewing its lease, give the claims back on shutdown.

What a claim is (an A2A push config, a webhook's stream of one task) and how it is
worked is the caller's: a `Claims` store and a work function. A replica that dies stops
renewing; its claims expire and another replica claims them again and goes on from the
cursor the store kept, so what is delivered is delivered at least once, in order. A claim
found lost while it is worked (another replica took it once it expired) stops its work.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import random
from collections.abc import Awaitable, Callable, Hashable, Sequence
from datetime import UTC, datetime, timedelta
from typing import Generic, Protocol, TypeVar

import httpcore
import structlog

from server.delivery.posting import guarded_pool
from tools.builtin.addresses import IPNetwork

log = structlog.get_logger(__name__)

T = TypeVar("T")
T_contra = TypeVar("T_contra", contravariant=True)


def backoff(attempt: int, base: float, cap: float) -> float:
    """Seconds before retry `attempt` (1, 2, ...): full jitter over base * 2^attempt."""
    return random.uniform(0, min(cap, base * 2 ** min(attempt, 20)))


class Claims(Protocol[T]):
    """What a `ClaimLoop` claims from."""

    async def claim(self, replica: str, now: datetime, until: datetime, limit: int) -> Sequence[T]:
        """Up to `limit` due items, each now held by `replica` until `until`."""
        ...

    async def renew(self, held: T, replica: str, until: datetime) -> bool:
        """Hold it until `until`; False when `replica` does not hold it any more."""
        ...

    async def release(self, held: T, replica: str) -> None:
        """Give it up (if `replica` holds it): another replica may claim it at once."""
        ...


Work = Callable[[httpcore.AsyncConnectionPool, T], Awaitable[None]]
"""Delivers what one claim holds through the pool; returns when done (the claim is then
the store's business: finished, moved on or released by the work itself)."""


class ClaimLoop(Generic[T]):
    """Claims and works claims until cancelled; see the module docstring."""

    def __init__(
        self,
        claims: Claims[T],
        work: Work[T],
        key: Callable[[T], Hashable],
        replica: str,
        allowed: Sequence[IPNetwork],
        *,
        lease_seconds: float,
        poll_seconds: float,
        max_held: int,
        name: str,
    ) -> None:
        self._claims = claims
        self._work = work
        self._key = key
        self.replica = replica
        self._allowed = allowed
        self._lease = lease_seconds
        self._poll = poll_seconds
        self._max_held = max_held
        self._name = name
        self._held: dict[Hashable, asyncio.Task[None]] = {}
        self._wake = asyncio.Event()

    def until(self) -> datetime:
        """When a claim made or renewed now expires."""
        return datetime.now(UTC) + timedelta(seconds=self._lease)

    def nudge(self) -> None:
        """Claim at once rather than at the next poll (something new is due)."""
        self._wake.set()

    async def run(self) -> None:
        """Claim and work until cancelled; on cancel, give the claims back."""
        async with guarded_pool(self._allowed) as pool:
            try:
                while True:
                    await self._claim_more(pool)
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(self._wake.wait(), self._poll)
                    self._wake.clear()
            finally:
                jobs = list(self._held.values())
                for job in jobs:
                    job.cancel()
                await asyncio.gather(*jobs, return_exceptions=True)

    async def _claim_more(self, pool: httpcore.AsyncConnectionPool) -> None:
        room = self._max_held - len(self._held)
        if room <= 0:
            return
        try:
            claimed = await self._claims.claim(self.replica, datetime.now(UTC), self.until(), room)
        except Exception as error:  # noqa: BLE001 - the database is out of reach: next round
            log.warning("cannot claim deliveries", what=self._name, error=str(error))
            return
        for item in claimed:
            key = self._key(item)
            if key in self._held:  # still worked here (its claim renewed): not twice
                continue
            job = asyncio.create_task(self._hold(pool, item), name=self._name)
            self._held[key] = job
            job.add_done_callback(functools.partial(self._forget, key))

    def _forget(self, key: Hashable, _: asyncio.Task[None]) -> None:
        self._held.pop(key, None)

    async def _hold(self, pool: httpcore.AsyncConnectionPool, item: T) -> None:
        job = asyncio.current_task()
        assert job is not None
        renewing = asyncio.create_task(self._renew(item, job))
        try:
            await self._work(pool, item)
        except asyncio.CancelledError:
            with contextlib.suppress(Exception):
                await asyncio.shield(self._claims.release(item, self.replica))
            raise
        except Exception as error:  # noqa: BLE001 - said; the claim expires, then again
            log.warning("delivery stopped", what=self._name, error=str(error))
        finally:
            renewing.cancel()

    async def _renew(self, item: T, job: asyncio.Task[None]) -> None:
        """Keep the claim while it is worked (a third of the lease at a time); stop the
        work when another replica holds it now."""
        while True:
            await asyncio.sleep(self._lease / 3)
            try:
                held = await self._claims.renew(item, self.replica, self.until())
            except Exception:  # noqa: BLE001 - the database may be out of reach: again
                continue
            if not held:
                job.cancel()
                return
