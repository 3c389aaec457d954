"""Budgets held across replicas: which budgets a task draws on, whether it may start, and
each model call's reservation of its worst case before it goes and settlement of what it
spent after (`stores.budgets`: the definitions, cached per process, and the counters of
their windows, in Redis when replicas share state).

A counter the live store does not have (a new window, a Redis restart) is first seeded
from the usage ledger, the one source of what was spent: a reservation on a missing
counter is refused as missing (the meters never make one at 0), the counter seeded, and
the reservation asked again. Counters are looked for before the first reservation of a
window and every `known_seconds` after.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from agent.limits import step_clock_stopped
from core.errors import BudgetExhaustedError
from records.tasks import Task
from records.usage.budgets import Budget, BudgetUnit, BudgetWindow, Charge, Counter
from records.usage.prices import Price
from stores.budgets.base import BudgetMeter, BudgetStore
from stores.usage.base import UsageLedger

MIN_REPLY_TOKENS = 16
"""A call whose budget leaves room for fewer reply tokens than this is not sent."""


def agents_of(task: Task) -> tuple[str, ...]:
    """The agents whose budgets a task draws on: those above it in its tree, then its own
    ("" for the default agent)."""
    own = task.agent.agent_id if task.agent is not None else ""
    return (*task.lineage, own)


@dataclass(frozen=True, slots=True)
class Hold:
    """One model call's reservation on the budgets it draws on."""

    reservation: str
    budgets: tuple[Budget, ...]
    counters: tuple[str, ...]
    reply_tokens: int
    """The reply limit the call may be sent with (lowered to fit a hard limit)."""
    prompt_tokens: int = 0
    """The prompt's tokens it reserved (metering keeps agentd's own count of them here)."""


class NoRoom(Exception):  # noqa: N818 - a signal for the run, not an error
    """`budget` has no room for the call: past its hard limit, or (`soft`) its soft limit."""

    def __init__(self, budget: Budget, soft: bool) -> None:
        self.budget = budget
        self.soft = soft
        limit = "soft limit" if soft else "limit"
        super().__init__(f"{budget.described}: the next model call would go past its {limit}")


def amount(budget: Budget, prompt: int, reply: int, price: Price | None, cached: int = 0) -> int:
    """What a call of `prompt` and `reply` tokens counts against `budget`."""
    if budget.unit is BudgetUnit.TOKENS:
        return prompt + reply
    return price.cost(prompt, reply, cached) if price is not None else 0


def _fitting_reply(budget: Budget, room: int, prompt: int, price: Price | None) -> int:
    """The most reply tokens a call of `prompt` tokens may have within `room`."""
    if budget.unit is BudgetUnit.TOKENS:
        return room - prompt
    return price.tokens_for(room, prompt) if price is not None else 1 << 40


def _counter_seconds(window: BudgetWindow, now: datetime) -> float | None:
    """How long a window's counter is kept: a day past the window's end."""
    end = window.end(now)
    return None if end is None else (end - now + timedelta(days=1)).total_seconds()


class Budgets:
    """The process's view of the budgets: definitions, counters and the ledger."""

    def __init__(
        self,
        store: BudgetStore,
        counters: BudgetMeter,
        ledger: UsageLedger,
        *,
        reservation_seconds: float = 900.0,
        wait_seconds: float = 30.0,
        known_seconds: float = 30.0,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.store = store
        self.counters = counters
        self._ledger = ledger
        self._reservation_seconds = reservation_seconds
        self._wait_seconds = wait_seconds
        self._known_seconds = known_seconds
        self._known: dict[str, float] = {}
        self._names: dict[tuple[str, ...], tuple[list[str], float, datetime | None]] = {}
        """By the ids of the budgets a call draws on: their counters' names, until when
        (monotonic) they were looked for, and the end of the first of their windows."""
        self._clock = clock
        self._reservations = itertools.count(1)
        self._replica = secrets.token_hex(6)
        """Reservations are `<replica>-<n>`: unique across replicas without a random draw
        per call."""

    async def of_task(self, task: Task) -> Sequence[Budget]:
        return await self.store.applicable(task.tenant, task.owner, agents_of(task))

    async def admit(self, task: Task, prompt: int = 0, price: Price | None = None) -> None:
        """BudgetExhaustedError when a hard limit the task would draw on has no room left,
        by what its windows spent, for the task's first call (`prompt`: agentd's estimate
        of its first prompt; the shortest reply)."""
        budgets = [b for b in await self.of_task(task) if b.limit > 0]
        if not budgets:
            return
        now = self._clock()
        names = await self._seeded(budgets, now)
        counters = await self.counters.read(names)
        for budget, name in zip(budgets, names, strict=True):
            spent = counters[name].spent
            if budget.limit - spent < max(1, amount(budget, prompt, MIN_REPLY_TOKENS, price)):
                raise self.exhausted(budget, now)

    async def standing(self, budgets: Sequence[Budget], now: datetime) -> list[Counter]:
        """What each budget's current window has spent and holds reserved."""
        names = await self._seeded(budgets, now)
        found = await self.counters.read(names)
        return [found.get(name, Counter()) for name in names]

    def exhausted(self, budget: Budget, now: datetime | None = None) -> BudgetExhaustedError:
        now = now or self._clock()
        end = budget.window.end(now)
        retry = None if end is None else max(1.0, (end - now).total_seconds())
        return BudgetExhaustedError(budget.budget_id, budget.described, retry)

    async def reserve(
        self,
        budgets: Sequence[Budget],
        prompt: int,
        reply: int,
        price: Price | None,
        approved: frozenset[str] = frozenset(),
        counted: int = 0,
    ) -> Hold:
        """Reserve a call of `prompt` tokens and at most `reply` reply tokens on each budget
        (their soft limits but the `approved` ones' too). Where a hard limit is in the way:
        a call that what was spent leaves room for, whole, waits for the calls in flight
        to settle (up to `wait_seconds`) rather than be cut short; else its reply limit is
        lowered to what fits; NoRoom when not even the shortest reply fits by what was
        spent, or the calls in flight held the room all the wait. `counted`: agentd's own
        count of the prompt, kept on the hold (to calibrate by)."""
        names = await self._seeded(budgets)
        reservation = f"{self._replica}-{next(self._reservations)}"
        waited, pause = 0.0, 0.02
        while True:
            refusal = await self._reserve_once(
                budgets, names, reservation, prompt, reply, price, approved, counted
            )
            if isinstance(refusal, Hold):
                return refusal
            index, fits = refusal
            budget = budgets[index]
            left = await self._left(budget, names[index])  # by what was spent alone
            waiting = waited < self._wait_seconds
            if waiting and left >= amount(budget, prompt, reply, price):
                pass  # whole once the calls in flight settle: wait for them
            elif fits >= MIN_REPLY_TOKENS:
                reply = fits  # a shorter reply fits now: try that
                continue
            elif left < amount(budget, prompt, MIN_REPLY_TOKENS, price) or not waiting:
                raise NoRoom(budget, soft=False)  # spent out, or held all the wait
            async with step_clock_stopped():  # the wait for room is not the step's time
                await asyncio.sleep(pause)
            waited, pause = waited + pause, min(pause * 2, 0.5)

    async def _reserve_once(
        self,
        budgets: Sequence[Budget],
        names: Sequence[str],
        reservation: str,
        prompt: int,
        reply: int,
        price: Price | None,
        approved: frozenset[str],
        counted: int,
    ) -> Hold | tuple[int, int]:
        """The hold, or the hard limit in the way (by index) and the longest reply that
        would fit under it now; NoRoom(soft) for a soft limit in the way."""
        charges = [
            Charge(
                name,
                amount(b, prompt, reply, price),
                b.limit,
                0 if b.budget_id in approved else b.soft_limit,
            )
            for b, name in zip(budgets, names, strict=True)
        ]
        refusal = await self.counters.reserve(reservation, charges, self._reservation_seconds)
        for _ in budgets:  # a counter gone (a Redis restart): seeded from the ledger again
            if refusal is None or not refusal.missing:
                break
            await self._seed(budgets[refusal.index], names[refusal.index], self._clock())
            refusal = await self.counters.reserve(reservation, charges, self._reservation_seconds)
        if refusal is None:
            return Hold(reservation, tuple(budgets), tuple(names), reply, counted or prompt)
        budget = budgets[refusal.index]
        if refusal.missing:
            raise NoRoom(budget, soft=False)  # seeded, and gone again at once
        if refusal.soft:
            raise NoRoom(budget, soft=True)
        return refusal.index, min(reply - 1, _fitting_reply(budget, refusal.room, prompt, price))

    async def _left(self, budget: Budget, name: str) -> int:
        """What the window's spending alone (reservations aside: they may settle for less)
        leaves below `budget`'s limit."""
        return budget.limit - (await self.counters.read([name]))[name].spent

    async def settle(self, hold: Hold, prompt: int, completion: int, cost: int) -> None:
        """Release `hold` and count what the call spent (tokens or cost, by budget)."""
        spent = {
            name: prompt + completion if b.unit is BudgetUnit.TOKENS else cost
            for b, name in zip(hold.budgets, hold.counters, strict=True)
        }
        await self.counters.settle(hold.reservation, spent)

    async def _seeded(self, budgets: Sequence[Budget], now: datetime | None = None) -> list[str]:
        """Each budget's counter of the current window (of `now`, else the clock's),
        seeded from the ledger first when the live store does not have it. The names of a
        call's counters are made once per `known_seconds` (and window), not per call."""
        moment = time.monotonic()
        now = now or self._clock()
        key = tuple(b.budget_id for b in budgets)
        cached = self._names.get(key)
        if cached is not None and cached[1] > moment and (cached[2] is None or now < cached[2]):
            return cached[0]
        names = [b.counter(now) for b in budgets]
        ends = [end for end in (b.window.end(now) for b in budgets) if end is not None]
        for budget, name in zip(budgets, names, strict=True):
            if self._known.get(name, 0.0) > moment:
                continue
            if not await self.counters.exists(name):
                await self._seed(budget, name, now)
            if len(self._known) > 10_000:
                self._known.clear()
            self._known[name] = moment + self._known_seconds
        if len(self._names) > 10_000:
            self._names.clear()
        self._names[key] = (names, moment + self._known_seconds, min(ends, default=None))
        return names

    async def _seed(self, budget: Budget, name: str, now: datetime) -> None:
        """The counter `name` of `budget`'s window at `now`, made from what the ledger says
        the window spent (if no one made it meanwhile)."""
        start, end = budget.window.start(now), budget.window.end(now)
        spent = await self._ledger.spent(
            budget.tenant, budget.scope, budget.subject, budget.unit, start, end
        )
        await self.counters.seed(name, spent, _counter_seconds(budget.window, now))
