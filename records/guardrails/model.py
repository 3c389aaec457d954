"""Guardrails: checks on what goes into a task and what comes out of it.

A check (`CheckSpec`) looks at text at one or more points of a task — its input at
intake, the model's output, a tool call's arguments, a tool's result — and says what it
found (`Finding`, with the spans of the text it means). Its action says what follows:
BLOCK ends the task with a stop reason of its own, REDACT replaces what was found and
goes on, RECORD only records it. Checks that cost a round trip to a model may run on
every window of streamed output or only on the final answer (`Scope`).

All of the checks that apply to a task at one point are combined into one `Verdict`:
the strongest action found wins (BLOCK > REDACT > RECORD). The engine's side of this
lives in `agent.guardrails`; these are the plain values both sides share.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


class Point(enum.Enum):
    """Where in a task a check looks."""

    INPUT = "input"
    """The task's input at intake: its goal, its context, a conversation message, a steer."""
    OUTPUT = "output"
    """The model's output: streamed deltas and the final answer."""
    TOOL_ARGUMENTS = "tool_arguments"
    """A tool call's arguments (every string in them)."""
    TOOL_RESULT = "tool_result"
    """What a tool returned."""


class Action(enum.Enum):
    """What follows a finding; the strongest of a verdict's wins: BLOCK > REDACT > RECORD."""

    BLOCK = "block"
    """End the task, with a stop reason of its own; nothing that tripped it goes out."""
    REDACT = "redact"
    """Replace what was found with a placeholder and go on."""
    RECORD = "record"
    """Record the finding only; the text goes on unchanged."""


STRENGTH: Mapping[Action, int] = {Action.RECORD: 1, Action.REDACT: 2, Action.BLOCK: 3}
"""How strong each action is: of two findings', the stronger decides."""


class Scope(enum.Enum):
    """When a check that costs a model's round trip runs on streamed output."""

    WINDOW = "window"
    """On every window of the streamed output (and on every other text it is given)."""
    FINAL = "final"
    """Only on the final answer (or the whole text, where nothing is streamed)."""


@dataclass(frozen=True, slots=True)
class Span:
    """A part of the text checked: [start, end), with what it is (EMAIL, CARD, DENY...)."""

    start: int
    end: int
    label: str


@dataclass(frozen=True, slots=True)
class Finding:
    """What one check found: `check` is the declared check's name, `rule` what matched
    (`email`, `card`, `deny:<id>`, `moderation:<category>`, `policy`, `unavailable`),
    `reason` says it in words, and `spans` are the parts of the text it means (none: the
    text as a whole)."""

    check: str
    rule: str
    reason: str
    spans: tuple[Span, ...] = ()


@dataclass(frozen=True, slots=True)
class Subject:
    """Whose text is checked, and where: the task's tenant, agent, user and id, and the
    tool for the tool points."""

    point: Point
    tenant: str
    agent: str = ""
    user: str = ""
    task_id: str = ""
    tool: str = ""


@dataclass(frozen=True, slots=True)
class CheckSpec:
    """One declared check: its unique name, its kind (`pii`, `deny`, `allow`, `length`,
    `output_schema`, or a kind registered by a model-based check), the points it looks
    at, its action, its scope and the kind's options."""

    name: str
    kind: str
    points: frozenset[Point]
    action: Action
    scope: Scope = Scope.WINDOW
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Verdict:
    """All of a guard's checks at one point, combined: `action` is the strongest of the
    findings' (None: the text passed), and `text` is the text to go on with: for REDACT
    with every redacted span replaced by its placeholder, else the text unchanged."""

    action: Action | None
    findings: tuple[Finding, ...]
    text: str
