"""Which model plays which role in the engine."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from agent.llm.base import Model
from agent.llm.providers import Provider
from records.agents.definition import AgentDefinition

RoleName = Literal["planner", "executor", "critic", "synthesizer", "router"]


@dataclass(frozen=True)
class ModelRoles:
    """The model for each role; a role without its own model uses `default`."""

    default: Model
    planner: Model | None = None
    executor: Model | None = None
    critic: Model | None = None
    synthesizer: Model | None = None
    router: Model | None = None
    """Auto mode's router (`agent.modes.llm_router`); None: auto mode uses its rule."""
    calls: asyncio.Semaphore | None = None
    """At most this many model calls in flight in the process (None: no limit)."""
    providers: Mapping[str, Provider] = field(default_factory=dict)
    """The operator's named providers agents may name (`agent.llm.providers`)."""

    def for_role(self, role: RoleName) -> Model:
        model: Model | None = getattr(self, role)
        return model or self.default

    async def close(self) -> None:
        seen: set[int] = set()
        roles = (self.planner, self.executor, self.critic, self.synthesizer, self.router)
        for model in (self.default, *roles):
            if model is not None and id(model) not in seen:
                seen.add(id(model))
                await model.close()
        for provider in self.providers.values():
            if provider.close is not None:
                closing = provider.close()
                if inspect.isawaitable(closing):
                    await closing


def role_model(agent: AgentDefinition | None, role: str, server: str) -> str:
    """The model that plays `role` for a task of `agent`: the agent's for the role, else its
    default, else the server's (`server`) for the role."""
    models = agent.models if agent is not None else {}
    return models.get(role) or models.get("default") or server
