"""The policy the registry consults before a tool is listed or run.

Tools never check permissions themselves: the registry asks a
`PermissionPolicy` for every listing and every call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from core.identity import Principal
from tools.model import PermissionLevel, ToolSpec


@dataclass(frozen=True, slots=True)
class Decision:
    """Whether a principal may use a tool, and which rule said so."""

    allowed: bool
    """True when the call may go ahead."""
    rule: str
    """The rule that decided, for audit records."""


class PermissionPolicy(Protocol):
    """Decides whether a principal may use a tool.

    Implementations are pure and fast: they are consulted for each tool in a
    listing and for every call, from many tasks at once.
    """

    def decide(self, principal: Principal, tool: ToolSpec) -> Decision:
        """Decide for one principal and one tool."""
        ...


@dataclass(frozen=True, slots=True)
class LevelPolicy:
    """Grants every principal the same permission level.

    The policy of a single-team deployment: a principal may use every tool
    whose required level is at or below `granted`.
    """

    granted: PermissionLevel

    def decide(self, principal: Principal, tool: ToolSpec) -> Decision:
        rule = f"level:{self.granted.name.lower()}"
        return Decision(allowed=tool.permission <= self.granted, rule=rule)
