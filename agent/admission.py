"""Admission: which tasks a process takes on, and in what order they get to run.

A process runs at most `slots` tasks at once and lets at most `queue` more
wait. `admit` decides at once, before any work or store access: it hands
out a ticket, or raises `ResourceExhaustedError` with a retry delay. A ticket
then waits for a running slot.

Fair share between tenants: free slots go round-robin to the tenants with
waiting tasks (so a tenant that queued a hundred tasks does not make a
tenant with one wait for all of them), and while every slot is busy one
tenant may hold at most `tenant_queue_share` of the queue places, so the
rest stay open for the others.
"""

from __future__ import annotations

import asyncio
import math
import random
import time
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from core.errors import ResourceExhaustedError


class Ticket:
    """A task's place in this process: queued, then running. Give it back with `release`."""

    def __init__(self, admission: Admission, tenant: str) -> None:
        self._admission = admission
        self.tenant = tenant
        self._released = False
        self._taken = False
        """A slot taken by `take_now`, which `slot` holds."""

    def take_now(self) -> bool:
        """Take a running slot at once if one is free and no task waits for one; `slot`
        then holds it. False (nothing taken) otherwise."""
        self._taken = self._taken or self._admission._take_free(self.tenant)
        return self._taken

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[None]:
        """Wait for a running slot (round-robin between tenants), hold it for the block."""
        if self._taken:
            self._taken = False
        else:
            await self._admission._acquire(self.tenant)
        started = time.monotonic()
        try:
            yield
        finally:
            self._admission._release_slot(self.tenant, time.monotonic() - started)

    def release(self) -> None:
        """The task is done with this process (idempotent)."""
        if self._taken:  # taken, never held
            self._taken = False
            self._admission._release_slot(self.tenant)
        if not self._released:
            self._released = True
            self._admission._drop(self.tenant)


class Admission:
    """Slots and queue places of one process. Not thread-safe; one event loop."""

    def __init__(
        self,
        slots: int,
        queue: int,
        *,
        tenant_queue_share: float = 1.0,
        retry_after: float = 1.0,
        rng: random.Random | None = None,
    ) -> None:
        if slots < 1 or queue < 0 or not 0 < tenant_queue_share <= 1:
            raise ValueError("admission needs slots >= 1, queue >= 0 and 0 < share <= 1")
        self.slots = slots
        self.queue = queue
        self._share = max(1, math.floor(queue * tenant_queue_share)) if queue else 0
        self._retry_after = retry_after
        self._random = rng or random.Random()
        self._free = slots
        self._mean_hold: float | None = None
        """How long a task holds its slot, on average (exponentially weighted)."""
        self._first_start: float | None = None
        """When the first task took a slot (the hold estimate before any has finished)."""
        self._promised = 0.0
        """The latest moment a refused caller was told to come back (monotonic clock)."""
        self._held: Counter[str] = Counter()
        self._running: Counter[str] = Counter()
        self._waiting: OrderedDict[str, deque[asyncio.Future[None]]] = OrderedDict()

    @property
    def held(self) -> int:
        """Tickets out: tasks running or queued here."""
        return sum(self._held.values())

    @property
    def running(self) -> int:
        return sum(self._running.values())

    @property
    def room(self) -> int:
        """Tickets that could be handed out now."""
        return max(0, self.slots + self.queue - self.held)

    def retry_after(self) -> float:
        """When a refused caller should come back: paced to the rate at which places free
        up. A place frees every `hold / slots` seconds on average (`hold`: how long a
        task holds its slot; before any task has finished, at least as long as the first
        has been running, and at least the base delay); each refused caller is given the
        next free moment after those already promised (with jitter), so callers come
        back one after another as room opens, rather than all at once or long after it
        opened. At most 30 s."""
        now = time.monotonic()
        hold = self._mean_hold
        if hold is None:
            running_for = now - self._first_start if self._first_start is not None else 0.0
            hold = max(self._retry_after, running_for)
        interval = hold / self.slots
        start = max(self._promised, now)
        self._promised = min(start + interval * self._random.uniform(0.5, 1.5), now + 30.0)
        return round(max(0.05, self._promised - now), 3)

    def admit(self, tenant: str) -> Ticket:
        """A ticket for a new task of `tenant`, or ResourceExhaustedError at once."""
        if self.held >= self.slots + self.queue:
            raise ResourceExhaustedError(
                f"this server runs {self.slots} tasks and queues {self.queue}; both are full",
                retry_after_seconds=self.retry_after(),
            )
        queued = self._held[tenant] - self._running[tenant]
        if self.held >= self.slots and queued >= self._share and self._share < self.queue:
            raise ResourceExhaustedError(
                f"this tenant already holds {queued} of the {self.queue} queue places of this "
                f"server (its share while every slot is busy is {self._share})",
                retry_after_seconds=self.retry_after(),
            )
        self._held[tenant] += 1
        return Ticket(self, tenant)

    def _take_free(self, tenant: str) -> bool:
        if self._first_start is None:
            self._first_start = time.monotonic()
        if self._free > 0 and not self._waiting:
            self._free -= 1
            self._running[tenant] += 1
            return True
        return False

    async def _acquire(self, tenant: str) -> None:
        if self._take_free(tenant):
            return
        turn: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiting.setdefault(tenant, deque()).append(turn)
        try:
            await turn
        except asyncio.CancelledError:
            if turn.done() and not turn.cancelled():
                self._release_slot(tenant)  # given a slot just as it was cancelled
            else:
                self._forget(tenant, turn)
            raise

    def _forget(self, tenant: str, turn: asyncio.Future[None]) -> None:
        waiters = self._waiting.get(tenant)
        if waiters is not None and turn in waiters:
            waiters.remove(turn)
            if not waiters:
                del self._waiting[tenant]

    def _release_slot(self, tenant: str, held: float | None = None) -> None:
        """`tenant`'s slot came free: the next tenant in turn gets it, else it stays free."""
        if held is not None:
            previous = self._mean_hold
            self._mean_hold = held if previous is None else 0.9 * previous + 0.1 * held
        self._running[tenant] -= 1
        if self._running[tenant] <= 0:
            del self._running[tenant]
        while self._waiting:
            waiting_tenant, waiters = next(iter(self._waiting.items()))
            turn = waiters.popleft()
            if waiters:
                self._waiting.move_to_end(waiting_tenant)  # its next task waits its turn
            else:
                del self._waiting[waiting_tenant]
            if not turn.done():
                self._running[waiting_tenant] += 1
                turn.set_result(None)
                return
        self._free += 1

    def _drop(self, tenant: str) -> None:
        self._held[tenant] -= 1
        if self._held[tenant] <= 0:
            del self._held[tenant]
