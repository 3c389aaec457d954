"""Budgets: limits on what a tenant, an end user or an agent spends on model calls, in
tokens or money, over a UTC day, a month or all time (`agent.budgets` enforces them,
`stores.budgets` keeps them and their counters)."""

from __future__ import annotations

import enum
import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta


class BudgetScope(enum.Enum):
    TENANT = "tenant"
    USER = "user"
    """`subject` is the end user's principal id (a task's owner)."""
    AGENT = "agent"
    """`subject` is an agent id; its children's calls count too."""


class BudgetUnit(enum.Enum):
    TOKENS = "tokens"
    MONEY = "money"
    """Micro-units of the server's currency."""


class BudgetWindow(enum.Enum):
    DAY = "day"
    MONTH = "month"
    NONE = "none"

    def start(self, now: datetime) -> datetime | None:
        """Where the window holding `now` started (UTC); None for NONE."""
        now = now.astimezone(UTC)
        if self is BudgetWindow.DAY:
            return now.replace(hour=0, minute=0, second=0, microsecond=0)
        if self is BudgetWindow.MONTH:
            return now.replace(day=1, hour=0, minute=0, second=0, microsecond=0)
        return None

    def end(self, now: datetime) -> datetime | None:
        """Where the window holding `now` ends (UTC); None for NONE."""
        start = self.start(now)
        if start is None:
            return None
        if self is BudgetWindow.DAY:
            return start + timedelta(days=1)
        year, month = (start.year + 1, 1) if start.month == 12 else (start.year, start.month + 1)
        return start.replace(year=year, month=month)

    def key(self, now: datetime) -> str:
        """The window's name: 2026-12-07, 2026-12, or `all`."""
        start = self.start(now)
        if start is None:
            return "all"
        return start.strftime("%Y-%m-%d" if self is BudgetWindow.DAY else "%Y-%m")


def new_budget_id() -> str:
    """`bgt_` and 20 hexadecimal digits: 12 of milliseconds since the epoch, then 8
    random ones, so ids sort by creation (those of one millisecond in no set order)."""
    return f"bgt_{time.time_ns() // 1_000_000:012x}{secrets.token_hex(4)}"


@dataclass(frozen=True, slots=True)
class Budget:
    budget_id: str
    tenant: str
    scope: BudgetScope
    subject: str
    """The user's principal id or the agent's id; "" for a tenant budget."""
    unit: BudgetUnit
    window: BudgetWindow
    limit: int = 0
    """Hard: no call may reserve past it. 0: none."""
    soft_limit: int = 0
    """A call that would pass it waits for a person's approval first. 0: none."""
    created_by: str = ""
    created_at: datetime | None = None

    def counter(self, now: datetime) -> str:
        """The name of the counter of the window holding `now`."""
        return f"{self.budget_id}:{self.window.key(now)}"

    @property
    def described(self) -> str:
        """E.g. `the tenant's daily budget of 50,000 tokens`."""
        whose = {
            BudgetScope.TENANT: "the tenant's",
            BudgetScope.USER: f"user {self.subject}'s",
            BudgetScope.AGENT: f"agent {self.subject}'s",
        }[self.scope]
        period = {BudgetWindow.DAY: "daily ", BudgetWindow.MONTH: "monthly ", BudgetWindow.NONE: ""}
        amount = self.limit or self.soft_limit
        what = f"{amount:,} tokens" if self.unit is BudgetUnit.TOKENS else f"{amount:,} micro-units"
        return f"{whose} {period[self.window]}budget {self.budget_id} of {what}"


@dataclass(frozen=True, slots=True)
class Counter:
    """What a budget's window has spent and holds reserved."""

    spent: int = 0
    reserved: int = 0


@dataclass(frozen=True, slots=True)
class Charge:
    """One budget's part of one reservation: `amount` against its window's counter."""

    counter: str
    amount: int
    limit: int = 0
    """Hard limit (0: none)."""
    soft_limit: int = 0
    """Soft limit (0: none, or already approved for this task)."""


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a reservation was not made: the charge (by index) that has no room."""

    index: int
    soft: bool
    """Only its soft limit was in the way."""
    room: int
    """What is left below the limit in the way (never negative)."""
    missing: bool = False
    """The charge's counter does not exist (never seeded, or gone with a Redis restart):
    nothing was reserved; seed it from the ledger and ask again."""
