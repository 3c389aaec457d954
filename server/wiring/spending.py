"""Money and numbers, built from the settings: the prices of the providers file, the
budgets (definitions on SQL, cached per replica; counters in Redis or this process), the
usage ledger, and the service the budget, usage and statistics RPCs call."""

from __future__ import annotations

from dataclasses import dataclass

from agent.llm.roles import ModelRoles
from agent.metrics import observe_model_call
from agent.spending.budgets import Budgets
from agent.spending.calls import Metering
from agent.spending.prices import PriceBook
from agent.tool_use.budget_approval import past_soft_limit
from core.roles import RoleTable
from server.services.usage import UsageService
from server.settings import Settings
from stores.budgets.cached import CachedBudgetStore
from stores.build import DurableStores, LiveStores


@dataclass(frozen=True, slots=True)
class Spending:
    budgets: Budgets
    meter: Metering


def build_spending(
    settings: Settings, durable: DurableStores, live: LiveStores, models: ModelRoles | None
) -> Spending:
    """Every model call metered: priced, reserved on its task's budgets, kept in the ledger."""
    budgets = Budgets(
        CachedBudgetStore(durable.budgets, settings.budget_refresh_seconds),
        live.budget_meter,
        durable.usage,
        reservation_seconds=settings.budget_reservation_seconds,
    )
    prices = PriceBook(models.providers if models is not None else {})
    meter = Metering(prices, durable.usage, budgets, observe_model_call, past_soft_limit)
    return Spending(budgets, meter)


def usage_service(
    settings: Settings, spending: Spending, durable: DurableStores, roles: RoleTable
) -> UsageService:
    return UsageService(
        spending.budgets,
        durable.usage,
        durable.stats,
        roles,
        settings.currency,
        settings.stats_max_rows,
    )
