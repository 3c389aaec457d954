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
import bisect
import math
import random
import time
from collections import Counter, OrderedDict, deque
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

from core.errors import ResourceExhaustedError

MIN_DELAY = 0.05
MAX_DELAY = 30.0
"""Bounds of a retry delay, in seconds."""


def _delay(seconds: float) -> float:
    return round(min(max(MIN_DELAY, seconds), MAX_DELAY), 3)


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
        started = self._admission._started()
        try:
            yield
        finally:
            self._admission._release_slot(self.tenant, started)

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
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if slots < 1 or queue < 0 or not 0 < tenant_queue_share <= 1:
            raise ValueError("admission needs slots >= 1, queue >= 0 and 0 < share <= 1")
        self.slots = slots
        self.queue = queue
        self._share = max(1, math.floor(queue * tenant_queue_share)) if queue else 0
        self._retry_after = retry_after
        self._random = rng or random.Random()
        self._clock = clock
        self._free = slots
        self._mean_hold: float | None = None
        """How long a task holds its slot, on average (exponentially weighted)."""
        self._starts: deque[float] = deque()
        """When each task now in a slot started there, oldest first (monotonic clock)."""
        self._promised: list[float] = []
        """The moments refused callers were told to come back that are yet to come, in
        order (monotonic clock)."""
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

    def retry_after(self, claim: bool = True) -> float:
        """When a refused caller should come back: just after a place is expected to free
        (with `claim` False, a place another caller may take: the caller is told a hold).

        A place frees when a task in a slot ends (a queued task takes the slot, or it stays
        free), about `hold` after it started (`hold`: how long tasks hold their slot, on
        average). Each refused caller is handed the first of the running tasks' ends not
        yet promised to an earlier caller, plus a short margin (so that it does not come
        back before the place is free). Callers refused together thus come back in order,
        together, as room opens, and fill it, rather than spread evenly over a task's time
        (which lets the queue drain between waves of tasks and leaves slots idle). A task
        running past its expected end is expected to run about as long again as it is
        overdue (a little while for one a little late, longer for one waiting for a
        person's approval): a caller that came back too early for it is told to come back
        then, not sent behind the others. When every end of this round is promised, the
        caller is told to ask again a hold later, when the next round's ends are known (a
        promise further ahead would hold its place however the round before it turned
        out, and leave the places others vacated idle). Before any task has finished
        there is no `hold` to go by: a caller is told to come back after about as long as
        the oldest running task has been running (at least the base delay), so it asks
        again twice as late each time. At least 0.05 s, at most 30 s."""
        now = self._clock()
        del self._promised[: bisect.bisect_right(self._promised, now)]
        hold = self._mean_hold
        if hold is None:
            running_for = now - self._starts[0] if self._starts else 0.0
            return _delay(max(self._retry_after, running_for) * self._random.uniform(0.75, 1.25))
        margin = min(0.02 * hold, 0.5)
        late = margin * self._random.uniform(1.0, 2.0)
        free = self._first_unclaimed(now, hold, margin) if claim else None
        if free is None:  # every end of this round is promised: ask again at the next
            return _delay(hold + late)
        at = min(free + late, now + MAX_DELAY)
        bisect.insort(self._promised, at)
        return _delay(at - now)

    def _first_unclaimed(self, now: float, hold: float, margin: float) -> float | None:
        """The first running task's expected end that the promises made so far (each at
        most 2 `margin` after the end it was made for) leave unclaimed: the first end with
        fewer promises up to it than ends before it. None when every one is claimed."""
        ends = []
        for start in self._starts:
            end = start + hold
            ends.append(end if end > now else now + max(margin, now - end))  # overdue
        ends += [now + hold] * (self.slots - len(ends))  # slots taken, the task not started
        ends.sort()
        for index, end in enumerate(ends):
            if bisect.bisect_right(self._promised, end + 2 * margin) <= index:
                return end
        return None

    def admit(self, tenant: str) -> Ticket:
        """A ticket for a new task of `tenant`, or ResourceExhaustedError at once."""
        if self.held >= self.slots + self.queue:
            raise ResourceExhaustedError(
                f"this server runs {self.slots} tasks and queues {self.queue}; both are full",
                retry_after_seconds=self.retry_after(),
            )
        queued = self._held[tenant] - self._running[tenant]
        if self.held >= self.slots and queued >= self._share and self._share < self.queue:
            # Its queued tasks leave the queue as slots free only while no other tenant's
            # wait for one (slots go round-robin): only then is a freed place its own.
            alone = all(t == tenant or self._held[t] <= self._running[t] for t in self._held)
            raise ResourceExhaustedError(
                f"this tenant already holds {queued} of the {self.queue} queue places of this "
                f"server (its share while every slot is busy is {self._share})",
                retry_after_seconds=self.retry_after(claim=alone),
            )
        self._held[tenant] += 1
        return Ticket(self, tenant)

    def _take_free(self, tenant: str) -> bool:
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

    def _started(self) -> float:
        """A task took its slot now: when (for `_release_slot`)."""
        started = self._clock()
        self._starts.append(started)
        return started

    def _release_slot(self, tenant: str, started: float | None = None) -> None:
        """`tenant`'s slot came free (held since `started`, when it was held): the next
        tenant in turn gets it, else it stays free."""
        if started is not None:
            held = self._clock() - started
            previous = self._mean_hold
            self._mean_hold = held if previous is None else 0.9 * previous + 0.1 * held
            self._starts.remove(started)
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
