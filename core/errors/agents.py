"""Errors of agent definitions."""

from __future__ import annotations

from core.errors.base import AgentdError, ResourceExhaustedError


class AgentNotFoundError(AgentdError):
    """No agent of that id (or that version of it) is available to the caller."""

    reason = "AGENT_NOT_FOUND"

    def __init__(self, reference: str) -> None:
        super().__init__(f"no agent {reference!r}", metadata={"agent": reference})


class AgentExistsError(AgentdError):
    """The tenant already has an agent of that id (or that version was just taken)."""

    reason = "AGENT_EXISTS"

    def __init__(self, agent_id: str) -> None:
        super().__init__(f"agent {agent_id!r} exists already", metadata={"agent": agent_id})


class AgentLimitError(ResourceExhaustedError):
    """CreateAgent refused: the tenant has as many agents as it may."""

    def __init__(self, tenant: str, limit: int) -> None:
        self.tenant = tenant
        self.limit = limit
        super().__init__(
            f"tenant {tenant!r} has {limit} agents, as many as one may "
            "(AGENTD_MAX_AGENTS_PER_TENANT); delete one first",
            0.0,
        )
        self.metadata["limit"] = str(limit)
