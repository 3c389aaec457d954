"""Building the models of each role from the settings: deferred (the OpenAI SDK is
imported after SERVING, agent/llm/deferred.py) unless the operator's providers file must
be read and checked at start; and how their calls are metered (`build_spending`: the
prices of the providers file, the budgets, the usage ledger) with the service the budget,
usage and statistics RPCs call."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.llm.deferred import ModelLoader, deferred_roles
from agent.llm.roles import ModelRoles, RoleName
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

if TYPE_CHECKING:
    from agent.scheduling.factory import ModelFactory


def build_models(settings: Settings) -> ModelRoles | None:
    """The models for each role, or None when no model is configured (a setting of
    `missing_llm_settings` is not set). Deferred: the OpenAI SDK is imported after SERVING
    (agent/llm/deferred.py), the models built on first need."""
    if settings.missing_llm_settings() or not settings.llm_model:
        return None
    calls = asyncio.Semaphore(settings.max_concurrent_llm_calls)
    if settings.providers_file is not None:  # read and checked at start, keys and all
        return openai_models(settings, calls)
    loader = ModelLoader(("openai", "agent.llm.openai"), lambda: openai_models(settings, calls))
    names: dict[RoleName | None, str | None] = {
        None: settings.llm_model,
        "planner": settings.llm_planner_model,
        "executor": settings.llm_executor_model,
        "critic": settings.llm_critic_model,
        "synthesizer": settings.llm_synthesizer_model,
        "router": settings.router_model,
    }
    return deferred_roles(names, loader, calls, settings.llm_max_tokens)


def openai_models(settings: Settings, calls: asyncio.Semaphore) -> ModelRoles:
    """The models of the settings on one OpenAI-compatible endpoint, sharing one client."""
    import httpx2
    import openai

    from agent.llm.openai import OpenAIModel
    from server.wiring.providers import build_providers

    # At most this many model calls at once; the HTTP pool is sized to match, so a
    # burst of tasks waits its turn for a call instead of timing out in the pool. The
    # SDK's aiohttp transport costs about half the CPU per call of its default one.
    limit = settings.max_concurrent_llm_calls
    client = openai.AsyncOpenAI(
        base_url=settings.llm_base_url,
        api_key=settings.llm_api_key or "unused",
        timeout=settings.llm_timeout_seconds,
        max_retries=0,
        http_client=openai.DefaultAioHttpClient(
            timeout=settings.llm_timeout_seconds,
            limits=httpx2.Limits(max_connections=limit, max_keepalive_connections=limit),
        ),
    )

    def model(name: str | None) -> OpenAIModel | None:
        if not name:
            return None
        return OpenAIModel(
            name,
            client=client,
            temperature=settings.llm_temperature,
            max_tokens=settings.llm_max_tokens,
            max_attempts=settings.llm_max_attempts,
            image_models=frozenset(settings.llm_image_models),
        )

    default = model(settings.llm_model)
    assert default is not None
    return ModelRoles(
        default=default,
        planner=model(settings.llm_planner_model),
        executor=model(settings.llm_executor_model),
        critic=model(settings.llm_critic_model),
        synthesizer=model(settings.llm_synthesizer_model),
        router=model(settings.router_model),
        calls=calls,
        providers=build_providers(settings),
    )


def model_factory(models: ModelRoles | None) -> ModelFactory | None:
    """Makes the models agents name: siblings of the default model on the same endpoint and
    client (None when the default model is not an OpenAI-compatible one)."""
    make: ModelFactory | None = getattr(models.default, "sibling", None) if models else None
    return make  # OpenAIModel's, or DeferredModel's (siblings of a deferred model)


@dataclass(frozen=True, slots=True)
class Spending:
    budgets: Budgets
    meter: Metering


def build_spending(
    settings: Settings, durable: DurableStores, live: LiveStores, models: ModelRoles | None
) -> Spending:
    """Every model call metered: priced, reserved on its task's budgets, kept in the ledger."""
    budgets = Budgets(
        CachedBudgetStore(durable.usage.budgets, settings.budget_refresh_seconds),
        live.budget_meter,
        durable.usage.ledger,
        reservation_seconds=settings.budget_reservation_seconds,
        wait_seconds=settings.budget_wait_seconds,
    )
    prices = PriceBook(models.providers if models is not None else {}, settings.currency)
    meter = Metering(prices, durable.usage.ledger, budgets, observe_model_call, past_soft_limit)
    return Spending(budgets, meter)


def usage_service(
    settings: Settings, spending: Spending, durable: DurableStores, roles: RoleTable
) -> UsageService:
    return UsageService(
        spending.budgets,
        durable.usage.ledger,
        durable.usage.stats,
        roles,
        settings.currency,
        settings.stats_max_rows,
    )
