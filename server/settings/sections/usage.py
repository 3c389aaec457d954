"""Money and numbers: the currency prices are in, how long the usage ledger is kept,
how budgets are held, and how much statistics read."""

from __future__ import annotations

from pydantic import Field, model_validator

from server.settings.base import Section

MONTH_SECONDS = 31 * 86_400


class UsageSettings(Section):
    currency: str = Field(
        "USD",
        pattern="^[A-Z]{3}$",
        description="the one currency (ISO 4217 code) of the prices in the providers file "
        "and of money budgets; amounts are integer micro-units (millionths) of it",
    )
    usage_retention_seconds: int = Field(
        400 * 86_400,
        ge=0,
        description="how long the usage ledger keeps a model call's row (GetUsage, GetStats "
        "and budgets' settlement read it); 0: for ever. If set, at least 31 days, so that a "
        "monthly budget's counter can be rebuilt from it",
    )
    budget_refresh_seconds: float = Field(
        5.0,
        gt=0,
        le=3600,
        description="how soon a budget created, changed or deleted on another replica "
        "applies here (each replica caches its tenants' budgets this long)",
    )
    budget_reservation_seconds: float = Field(
        900.0,
        ge=10,
        description="how long a model call's reservation on its budgets is held at most: one "
        "a process took and never settled (it stopped mid-call) is released after this",
    )
    budget_wait_seconds: float = Field(
        30.0,
        ge=0,
        le=3600,
        description="how long a model call waits for room on a budget that calls in flight "
        "hold (they may settle for less) before its task stops BUDGET_EXHAUSTED; a budget "
        "whose spending alone leaves no room stops it at once",
    )
    stats_max_rows: int = Field(
        100_000,
        ge=100,
        le=10_000_000,
        description="GetStats reads at most this many of the latest tasks, tool calls and "
        "model calls of a range for its percentiles (its counts are of all)",
    )

    @model_validator(mode="after")
    def _months_are_kept(self) -> UsageSettings:
        kept = self.usage_retention_seconds
        if kept and kept < MONTH_SECONDS:
            raise ValueError(
                "AGENTD_USAGE_RETENTION_SECONDS must be 0 (for ever) or at least 31 days "
                f"({MONTH_SECONDS} s): a monthly budget's counter is rebuilt from the ledger"
            )
        return self
