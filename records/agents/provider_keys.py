"""An agent's `provider:` and `fallback:` keys (`agent.llm.providers`): the operator's
named providers it is called on, and the chain tried when one fails."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from records.agents.checks import AgentInvalidError

PROVIDER_NAME = re.compile(r"^[a-z0-9](?:[a-z0-9_-]{0,62}[a-z0-9])?$")
MAX_FALLBACKS = 8
FALLBACK_KEYS = frozenset({"provider", "model"})
"""The keys of one entry of `fallback:`."""
ROLES = ("executor", "planner", "critic", "synthesizer", "router")
"""The engine's model roles an agent may name a model (and a provider) for."""


def provider_name(value: Any, source: str, field: str) -> str:
    if not isinstance(value, str) or not PROVIDER_NAME.fullmatch(value):
        raise AgentInvalidError(source, field, "a provider name: 1 to 64 of [a-z0-9_-]")
    return value


def providers_key(value: Any, source: str) -> dict[str, str]:
    """`provider: name` (every role) or `provider: {role: name, default: name}`."""
    if value is None:
        return {}
    if isinstance(value, str):
        return {"default": provider_name(value, source, "provider")}
    if not isinstance(value, Mapping) or not value:
        raise AgentInvalidError(source, "provider", "a provider name, or a mapping of role to one")
    chosen: dict[str, str] = {}
    for role, name in value.items():
        if role not in (*ROLES, "default"):
            raise AgentInvalidError(source, f"provider.{role}", f"roles are {', '.join(ROLES)}")
        chosen[str(role)] = provider_name(name, source, f"provider.{role}")
    return chosen


def fallback_key(value: Any, source: str) -> tuple[tuple[str, str], ...]:
    """`fallback: [{provider: backup, model: gpt-4o-mini}, {provider: other}]`."""
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > MAX_FALLBACKS:
        raise AgentInvalidError(
            source, "fallback", f"a list of at most {MAX_FALLBACKS} {{provider, model}} entries"
        )
    chain: list[tuple[str, str]] = []
    for index, entry in enumerate(value):
        where = f"fallback[{index}]"
        if not isinstance(entry, Mapping) or set(map(str, entry)) - FALLBACK_KEYS:
            raise AgentInvalidError(source, where, "a mapping of provider and (optional) model")
        model = entry.get("model", "")
        if not isinstance(model, str) or len(model) > 200:
            raise AgentInvalidError(source, f"{where}.model", "must be a model name")
        chain.append((provider_name(entry.get("provider"), source, f"{where}.provider"), model))
    return tuple(chain)
