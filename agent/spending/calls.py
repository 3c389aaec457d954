"""Each model call of a run, metered: its worst case reserved on the budgets its task draws
on before it goes, what it spent settled after, priced, and kept in the usage ledger (one
row per call, and one per provider of a fallback chain that failed it).

A hard limit with too little room stops the task (STOP_REASON_BUDGET_EXHAUSTED); one with
some room lowers the call's reply limit to fit it, so a task overspends by at most the
difference between agentd's count of a prompt and the provider's. A soft limit parks the
task on a wait of kind `budget` (`agent.tool_use.budget_approval`, given as `ask`) until a
person approves going past it (ApproveToolCall) or denies it (the task stops).
"""

from __future__ import annotations

import asyncio
import math
import secrets
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

import structlog

from agent.limits import LimitReached
from agent.llm.base import Model, ModelError
from agent.spending.budgets import Budgets, Hold, NoRoom, agents_of
from agent.spending.prices import PriceBook
from records.messages import FailedAttempt, ModelResponse, ModelSettings
from records.tasks import StopReason, Task, TokenUsage
from records.usage.budgets import Budget
from records.usage.ledger import CallOutcome, ModelCall
from stores.usage.base import UsageLedger

log = structlog.get_logger(__name__)

Observe = Callable[[ModelCall, float], None]
"""Told of every call kept (its metrics: `agent.metrics.observe_model_call`)."""
MAX_PROMPT_FACTOR = 4.0
"""A provider's count of a prompt is taken as at most four times agentd's."""
Ask = Callable[[Any, Budget], Awaitable[None]]
"""Asks a person to let a run past a budget's soft limit: returns once approved, raises
Parked while nobody decided and LimitReached when denied (the run is a `TaskRun`)."""


class MeteredRun(Protocol):
    """What metering needs of a run (`agent.running.run.TaskRun`)."""

    task: Task


@dataclass(frozen=True, slots=True)
class Metered:
    """A call about to go: the settings to send it with, and its reservation (if any)."""

    settings: ModelSettings
    hold: Hold | None


class Metering:
    """Prices, budgets and the ledger, for every model call of the process's runs."""

    def __init__(
        self,
        prices: PriceBook,
        ledger: UsageLedger | None = None,
        budgets: Budgets | None = None,
        observe: Observe | None = None,
        ask: Ask | None = None,
    ) -> None:
        self.prices = prices
        self.ledger = ledger
        self.budgets = budgets
        self._observe = observe
        self._ask = ask
        self._settling: deque[tuple[Hold, int, int, int]] = deque()
        """Calls to settle (hold, prompt, completion, cost), in the order they ended."""
        self._rows: deque[ModelCall] = deque()
        """Ledger rows to write, in the order they were kept."""
        self._worker: asyncio.Task[None] | None = None
        """Settles and writes what is queued, beside the runs' next work; made when work
        is queued and none is running (one task for both: one made per call, not two)."""
        self._prompt_factor: dict[str, float] = {}
        """By model: the most its provider counted a prompt above agentd's count."""
        self._least_prompt: dict[str, int] = {}
        """By model: the shortest prompt a call of a task with budgets sent (agentd's
        count); a task whose budgets have less room than that cannot start."""

    async def admit(self, task: Task, model: Model, prompt: int) -> None:
        """BudgetExhaustedError when the task cannot start within its budgets: one has no
        room for its first call (`prompt`, or the shortest prompt `model` was sent with
        budgets on, if longer: its instructions and tools are in every prompt)."""
        if self.budgets is not None:
            price = self.prices.dearest(model)
            prompt = max(prompt, self._least_prompt.get(model.name, 0))
            await self.budgets.admit(task, self._scaled(model, prompt), price)

    async def before(
        self, run: MeteredRun, model: Model, prompt: int, settings: ModelSettings
    ) -> Metered:
        """Reserve the call's worst case (`prompt` and the settings' reply limit); the
        settings to send it with. LimitReached (BUDGET_EXHAUSTED) when a budget has no
        room; Parked while a person is asked to let it past a soft limit."""
        if self.budgets is None:
            return Metered(settings, None)
        budgets = await self.budgets.of_task(run.task)
        if not budgets:
            return Metered(settings, None)
        least = self._least_prompt.get(model.name)
        if least is None or prompt < least:
            if len(self._least_prompt) >= 1_000:  # many models' names: start over
                self._least_prompt.clear()
            self._least_prompt[model.name] = prompt
        price = self.prices.dearest(model)
        reply = settings.max_tokens or model.max_tokens or 4096
        approved: frozenset[str] = frozenset()
        for _ in range(len(budgets) + 1):  # each soft limit asked about once
            try:
                hold = await self.budgets.reserve(
                    budgets, self._scaled(model, prompt), reply, price, approved, counted=prompt
                )
            except NoRoom as no:
                asked = no.budget.budget_id in approved
                if not no.soft or asked or self._ask is None:  # no one to ask, or asked
                    raise LimitReached(StopReason.BUDGET_EXHAUSTED, str(no)) from None
                await self._ask(run, no.budget)  # Parked, LimitReached, or approved
                approved |= {no.budget.budget_id}
                continue
            if settings.max_tokens != hold.reply_tokens:
                settings = settings.limited(hold.reply_tokens)
            return Metered(settings, hold)
        raise LimitReached(StopReason.BUDGET_EXHAUSTED, "budgets changed while reserving")

    def _scaled(self, model: Model, prompt: int) -> int:
        """Agentd's count of a prompt for `model`, scaled by the most its provider has
        counted more than agentd for it (an estimate for models without an exact encoding),
        so that a reservation covers what the provider will charge."""
        return math.ceil(prompt * self._prompt_factor.get(model.name, 1.0))

    def _calibrate(self, model: Model, counted: int, charged: int) -> None:
        if counted > 0 and charged > counted:
            factor = min(MAX_PROMPT_FACTOR, charged / counted)
            if factor > self._prompt_factor.get(model.name, 1.0):
                if len(self._prompt_factor) >= 1_000:  # many models' names: start over
                    self._prompt_factor.clear()
                self._prompt_factor[model.name] = factor

    def priced(self, response: ModelResponse, model: Model, usage: TokenUsage) -> TokenUsage:
        """`usage` with what it cost at the price of the model that answered."""
        price = self.prices.price(response.provider, response.asked_model or model.name)
        if price is None:
            return usage
        cost = price.cost(usage.prompt_tokens, usage.completion_tokens, usage.cached_prompt_tokens)
        return usage if cost == usage.cost_micros else usage.costing(cost)

    def answered(
        self,
        run: MeteredRun,
        model: Model,
        role: str,
        response: ModelResponse,
        usage: TokenUsage,
        seconds: float,
        hold: Hold | None,
        estimated: bool,
    ) -> None:
        """Settle the call's reservation with what it spent (`usage`, priced) and keep it,
        with the providers that failed it first, in the ledger. Nothing is awaited here
        (no cancel can come between the call and its settlement): the settlement and the
        rows are queued for their writers, which run beside the run's next work."""
        if hold is not None and self.budgets is not None:
            self._calibrate(model, hold.prompt_tokens, usage.prompt_tokens)
            self._settling.append(
                (hold, usage.prompt_tokens, usage.completion_tokens, usage.cost_micros)
            )
        asked = response.asked_model or model.name
        price = self.prices.price(response.provider, asked)
        own = max(0.0, seconds - sum(a.seconds for a in response.failed))  # its own time
        row = _row(
            run.task,
            role,
            response.provider,
            asked,
            CallOutcome.OK,
            own,
            prompt_tokens=usage.prompt_tokens,
            cached_prompt_tokens=usage.cached_prompt_tokens,
            completion_tokens=usage.completion_tokens,
            reasoning_tokens=usage.reasoning_tokens,
            cost_micros=usage.cost_micros,
            priced=price is not None,
            estimated=estimated,
        )
        self._keep([*_failures(run.task, role, response.failed), row] if response.failed else [row])

    async def failed(
        self,
        run: MeteredRun,
        model: Model,
        role: str,
        error: BaseException,
        seconds: float,
        hold: Hold | None,
    ) -> None:
        """A call that got no answer. A provider's error bills nothing: the reservation is
        released and the failures kept. A call cancelled or timed out on agentd's side
        may have been billed: its worst case is counted (and kept as an estimate)."""
        if isinstance(error, ModelError) or hold is None:
            if hold is not None and self.budgets is not None:
                await self.budgets.settle(hold, 0, 0, 0)
            attempts: Sequence[FailedAttempt] = ()
            if isinstance(error, ModelError):
                made = FailedAttempt("", model.name, seconds, error.message)
                attempts = error.failed or (made,)
            self._keep(_failures(run.task, role, attempts))
            return
        prompt, reply = self._scaled(model, hold.prompt_tokens), hold.reply_tokens
        price = self.prices.dearest(model)
        cost = price.cost(prompt, reply) if price is not None else 0
        if self.budgets is not None:
            await self.budgets.settle(hold, prompt, reply, cost)
        row = _row(
            run.task,
            role,
            "",
            model.name,
            CallOutcome.FAILED,
            seconds,
            prompt_tokens=prompt,
            completion_tokens=reply,
            cost_micros=cost,
            priced=price is not None,
            estimated=True,
        )
        self._keep([row])

    def _keep(self, rows: Sequence[ModelCall]) -> None:
        """Count the rows in the metrics at once; queue them for the ledger, which one task
        writes beside the runs' next work (no call waits for a commit; `drain` at
        shutdown)."""
        for row in rows:
            if self._observe is not None:
                self._observe(row, row.latency_ms / 1000)
        if self.ledger is not None:
            self._rows.extend(rows)
        if (self._settling or self._rows) and (self._worker is None or self._worker.done()):
            self._worker = asyncio.create_task(self._work())

    async def _work(self) -> None:
        """Settle the queued calls and write the queued rows, in order; a settlement goes
        before any row still queued (a row's commit holds no reservation up)."""
        while self._settling or self._rows:
            if self._settling:
                await self._settle(*self._settling.popleft())
                continue
            row = self._rows.popleft()
            assert self.ledger is not None
            try:
                await self.ledger.record(row)
            except Exception:
                log.exception("a model call's usage row could not be written", task_id=row.task_id)

    async def _settle(self, hold: Hold, prompt: int, completion: int, cost: int) -> None:
        """Settle one call; a store out of reach is retried a few times (the reservation
        lapses if it stays so; the ledger still has the call)."""
        assert self.budgets is not None
        for pause in (0.05, 0.25, 1.0, None):
            try:
                await self.budgets.settle(hold, prompt, completion, cost)
                return
            except Exception:
                if pause is None:
                    log.exception("a model call could not be settled; its hold lapses")
                    return
                await asyncio.sleep(pause)

    async def drain(self) -> None:
        """Wait for the settlements and ledger rows queued (at shutdown, and in tests)."""
        while self._worker is not None and not self._worker.done():
            await asyncio.gather(self._worker, return_exceptions=True)


def _row(
    task: Task,
    role: str,
    provider: str,
    model: str,
    outcome: CallOutcome,
    seconds: float,
    **usage: int | bool,
) -> ModelCall:
    agent = task.agent
    return ModelCall(
        call_id=secrets.token_hex(12),
        at=datetime.now(UTC),
        tenant=task.tenant,
        task_id=task.task_id,
        root_task_id=task.root,
        user=task.owner,
        agent=agent.agent_id if agent is not None else "",
        agent_version=agent.version if agent is not None else 0,
        agents=agents_of(task),
        provider=provider,
        model=model,
        role=role,
        outcome=outcome,
        latency_ms=max(0, round(seconds * 1000)),
        **usage,  # type: ignore[arg-type]
    )


def _failures(task: Task, role: str, attempts: Sequence[FailedAttempt]) -> list[ModelCall]:
    return [_row(task, role, a.provider, a.model, CallOutcome.FAILED, a.seconds) for a in attempts]
