"""The usage ledger: one row per model call, the one source for usage reports,
statistics and the settlement of budgets (`stores.usage`)."""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime


class CallOutcome(enum.Enum):
    OK = "ok"
    """The model answered."""
    FAILED = "failed"
    """The provider failed (an error, a timeout); a fallback may have answered after."""


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One model call of one task, as the ledger keeps it."""

    call_id: str
    """Unique (assigned by the engine)."""
    at: datetime
    """When it ended (UTC)."""
    tenant: str
    task_id: str
    root_task_id: str
    user: str
    """The end user: the principal the task runs for (its owner)."""
    agent: str
    """The task's agent id; "" for the default agent."""
    agent_version: int
    agents: tuple[str, ...]
    """The agents above the task in its tree, top first, then its own ("" for the
    default agent): an agent's budget counts its children's calls."""
    provider: str
    """"" for the server's own endpoint."""
    model: str
    role: str
    outcome: CallOutcome
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cost_micros: int = 0
    priced: bool = True
    """False when the providers file gives the model no price (its cost is 0)."""
    latency_ms: int = 0
    estimated: bool = False
    """The endpoint reported no usage: the tokens are agentd's estimate."""

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


class UsageGroup(enum.Enum):
    TENANT = "tenant"
    USER = "user"
    AGENT = "agent"
    MODEL = "model"
    PROVIDER = "provider"
    DAY = "day"
    """The UTC day of the call (YYYY-MM-DD)."""


@dataclass(frozen=True, slots=True)
class UsageQuery:
    """A tenant's model calls over [start, end), grouped, filtered, one page."""

    tenant: str
    start: datetime
    end: datetime
    group_by: tuple[UsageGroup, ...] = ()
    user: str = ""
    agent: str = ""
    model: str = ""
    provider: str = ""
    limit: int = 100
    offset: int = 0
    """Rows of earlier pages (groups are ordered by their values)."""


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """The calls of one group (only the grouped-by values are set)."""

    values: dict[UsageGroup, str] = field(default_factory=dict)
    calls: int = 0
    failed_calls: int = 0
    prompt_tokens: int = 0
    cached_prompt_tokens: int = 0
    completion_tokens: int = 0
    reasoning_tokens: int = 0
    cost_micros: int = 0
    unpriced_calls: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens


@dataclass(frozen=True, slots=True)
class UsageReport:
    rows: tuple[UsageTotals, ...]
    total: UsageTotals
    more: bool
    """Whether rows follow this page."""
