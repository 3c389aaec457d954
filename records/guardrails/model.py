"""Guardrails' records: where a check looks, what it does, what it found and of whom.

Plain frozen types, no I/O: the engine's Guard, the checks and the server's policy
client all speak them."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class Point(enum.Enum):
    """Where in a task a check looks."""

    INPUT = "input"
    OUTPUT = "output"
    TOOL_ARGUMENTS = "tool_arguments"
    TOOL_RESULT = "tool_result"


class Action(enum.Enum):
    """What a check does with what it finds."""

    BLOCK = "block"
    REDACT = "redact"
    RECORD = "record"


class Scope(enum.Enum):
    """When a model-based check runs on the output: every window, or the final answer."""

    WINDOW = "window"
    FINAL = "final"


@dataclass(frozen=True, slots=True)
class Span:
    """A stretch of the inspected text, in code points: [start, end)."""

    start: int
    end: int
    label: str


@dataclass(frozen=True, slots=True)
class Finding:
    """One thing a check found: its rule, why, and where when it knows."""

    check: str
    rule: str
    reason: str
    spans: tuple[Span, ...] = ()


@dataclass(frozen=True, slots=True)
class Subject:
    """Whose text a check inspects, and at which point."""

    point: Point
    tenant: str
    agent: str = ""
    user: str = ""
    task_id: str = ""
    tool: str = ""


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """A declared check: its kind, points, action, scope and kind-specific options."""

    name: str
    kind: str
    points: frozenset[Point]
    action: Action
    scope: Scope = Scope.WINDOW
    options: Mapping[str, Any] = field(default_factory=dict)
