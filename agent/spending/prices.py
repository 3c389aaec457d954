"""The prices of the operator's models (the providers file's `models:` entries), looked
up by provider and the exact model name a call asked for.

The server's own endpoint (AGENTD_LLM_BASE_URL, provider "") is priced by a provider
named `default` in the providers file, when there is one. A call that may go to several
providers (a fallback chain) reserves at the dearest price among them.
"""

from __future__ import annotations

from collections.abc import Mapping

from agent.llm.base import Model
from agent.llm.providers import DEFAULT_PROVIDER, FallbackModel, Provider
from records.usage.prices import Price


class PriceBook:
    """Prices by provider and model name; None for a model the file gives no price.
    `currency`: the ISO 4217 code they are in (AGENTD_CURRENCY), named in what is said of
    a spend; empty when unknown."""

    def __init__(self, providers: Mapping[str, Provider], currency: str = "") -> None:
        self._prices = {name: dict(p.prices) for name, p in providers.items() if p.prices}
        self.currency = currency

    def __bool__(self) -> bool:
        return bool(self._prices)

    def price(self, provider: str, model: str) -> Price | None:
        found = self._prices.get(provider or DEFAULT_PROVIDER)
        return found.get(model) if found is not None else None

    def dearest(self, model: Model) -> Price | None:
        """The highest price a call to `model` may be charged at (per token kind, over the
        candidates of a fallback chain); None when none of them has a price."""
        if not isinstance(model, FallbackModel):
            return self.price("", model.name)
        found = [
            c.provider.prices.get(c.model.name) or self.price(c.provider.name, c.model.name)
            for c in model.candidates
        ]
        prices = [p for p in found if p is not None]
        if not prices:
            return None
        cached = [p.cached_input for p in prices if p.cached_input is not None]
        return Price(
            max(p.input for p in prices),
            max(p.output for p in prices),
            max(cached) if len(cached) == len(prices) else None,
        )
