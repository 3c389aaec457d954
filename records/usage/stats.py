"""Statistics of a tenant's tasks, tool calls and model calls over a range."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime


@dataclass(frozen=True, slots=True)
class StatsQuery:
    tenant: str
    start: datetime
    end: datetime
    agent: str = ""
    """Only this agent's tasks (its id); "": every task."""
    max_rows: int = 100_000
    """At most this many rows of each kind are read for percentiles (the latest)."""


@dataclass(frozen=True, slots=True)
class TaskStats:
    agent: str = ""
    tasks: int = 0
    completed: int = 0
    failed: int = 0
    cancelled: int = 0
    stop_reasons: dict[str, int] = field(default_factory=dict)
    """A `records.tasks.StopReason` value -> tasks."""
    p50_seconds: float = 0.0
    p95_seconds: float = 0.0
    p50_iterations: float = 0.0
    p95_iterations: float = 0.0
    total_tokens: int = 0
    cost_micros: int = 0

    @property
    def success_rate(self) -> float:
        return self.completed / self.tasks if self.tasks else 0.0


@dataclass(frozen=True, slots=True)
class ToolStats:
    tool: str
    calls: int = 0
    failed: int = 0
    p50_seconds: float = 0.0
    p95_seconds: float = 0.0

    @property
    def success_rate(self) -> float:
        return (self.calls - self.failed) / self.calls if self.calls else 0.0


@dataclass(frozen=True, slots=True)
class ProviderStats:
    provider: str
    calls: int = 0
    failed_calls: int = 0
    p50_seconds: float = 0.0
    p95_seconds: float = 0.0
    total_tokens: int = 0
    cost_micros: int = 0

    @property
    def success_rate(self) -> float:
        return (self.calls - self.failed_calls) / self.calls if self.calls else 0.0


@dataclass(frozen=True, slots=True)
class Stats:
    tasks: TaskStats
    agents: tuple[TaskStats, ...] = ()
    """Most tasks first."""
    tools: tuple[ToolStats, ...] = ()
    """Most calls first."""
    providers: tuple[ProviderStats, ...] = ()
    """Most calls first."""
    sampled: bool = False
    """More rows than `max_rows`: percentiles are of the latest ones."""


def percentile(ordered: list[float], fraction: float) -> float:
    """The nearest-rank percentile of an ascending list (0 for an empty one)."""
    if not ordered:
        return 0.0
    rank = max(1, -(-int(fraction * 1000) * len(ordered) // 1000))
    return ordered[min(rank, len(ordered)) - 1]
