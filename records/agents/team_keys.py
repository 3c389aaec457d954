"""An agent's `delegates:` and `panels:` keys (`agent.teams`): the agents it may hand
work to, and the voting panels it may ask."""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from records.agents.checks import AgentInvalidError, number_key, text_key

AGENT_ID = re.compile(r"^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$")
PANEL_NAME = re.compile(r"^[a-z][a-z0-9_]{0,31}$")
MAX_DELEGATES = 16
DEFAULT_PANEL_THRESHOLD = 0.6
PANEL_KEYS = frozenset({"name", "agents", "threshold", "judge_model", "description"})
"""The keys of one entry of `panels:`."""


@dataclass(frozen=True, slots=True)
class Panel:
    """A voting panel an agent may ask (`panel.<name>`): its members answer the same
    question as child tasks; the largest group of equivalent answers wins if its share
    reaches `threshold` (`agent.teams.panels`)."""

    name: str
    agents: tuple[str, ...]
    """Member agent ids (an id may repeat: that agent answers more than once)."""
    threshold: float = DEFAULT_PANEL_THRESHOLD
    judge_model: str = ""
    """Empty: answers are grouped by normalised exact match; else the model that groups
    them."""
    description: str = ""


def delegates_key(value: Any, source: str, own: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(
        isinstance(v, str) and AGENT_ID.fullmatch(v) for v in value
    ):
        raise AgentInvalidError(source, "delegates", "must be a list of agent ids")
    if len(value) > MAX_DELEGATES:
        raise AgentInvalidError(source, "delegates", f"at most {MAX_DELEGATES} agents")
    if own in value:
        raise AgentInvalidError(source, "delegates", f"an agent cannot delegate to itself ({own})")
    return tuple(dict.fromkeys(value))


def panels_key(value: Any, source: str) -> tuple[Panel, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or len(value) > 8:
        raise AgentInvalidError(source, "panels", "a list of at most 8 panels")
    panels: list[Panel] = []
    for index, item in enumerate(value):
        where = f"panels[{index}]"
        if not isinstance(item, Mapping):
            raise AgentInvalidError(source, where, "a mapping with name, agents, threshold")
        unknown = sorted(set(map(str, item)) - PANEL_KEYS)
        if unknown:
            raise AgentInvalidError(source, f"{where}.{unknown[0]}", "unknown key")
        name = item.get("name")
        if not isinstance(name, str) or not PANEL_NAME.fullmatch(name):
            raise AgentInvalidError(source, f"{where}.name", "1 to 32 of [a-z0-9_], a letter first")
        if name in {p.name for p in panels}:
            raise AgentInvalidError(source, f"{where}.name", f"panel {name!r} is named twice")
        agents = item.get("agents")
        if (
            not isinstance(agents, list)
            or not 2 <= len(agents) <= 9
            or not all(isinstance(a, str) and AGENT_ID.fullmatch(a) for a in agents)
        ):
            raise AgentInvalidError(source, f"{where}.agents", "a list of 2 to 9 agent ids")
        threshold = number_key(item, "threshold", source, 0.01, 1.0)
        judge = item.get("judge_model", "")
        if not isinstance(judge, str) or len(judge) > 200:
            raise AgentInvalidError(source, f"{where}.judge_model", "must be a model name")
        description = text_key(item, "description", source, 2_000)
        panels.append(
            Panel(name, tuple(agents), threshold or DEFAULT_PANEL_THRESHOLD, judge, description)
        )
    return tuple(panels)
