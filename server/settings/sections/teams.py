"""Agents working together: how far delegation to sub-agents (child tasks) may go."""

from __future__ import annotations

from pydantic import Field

from server.settings.base import Section


class TeamSettings(Section):
    max_delegation_depth: int = Field(
        3,
        ge=1,
        le=10,
        description="the deepest a child task may sit below the task a caller started (a "
        "delegation past it is refused as the call's observation)",
    )
    max_children_per_task: int = Field(
        8,
        ge=1,
        le=256,
        description="child tasks (delegations and panel members) one task may start in all; "
        "more are refused as observations",
    )
    max_parallel_delegations: int = Field(
        4,
        ge=1,
        le=64,
        description="child tasks of one task running at once; more wait for one to end",
    )
