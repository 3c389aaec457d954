"""Helpers for the guardrail tests: specs in one line, and checks that stand in for the
model-based ones."""

from __future__ import annotations

from typing import Any

from agent.guardrails.base import GuardrailUnavailable
from records.guardrails import Action, CheckSpec, Finding, Point, Scope, Subject

ALL_POINTS = frozenset(Point)
SUBJECT = Subject(Point.OUTPUT, tenant="t1", agent="support", task_id="task-1")


def spec(
    kind: str,
    action: Action = Action.BLOCK,
    *,
    name: str = "",
    points: frozenset[Point] = ALL_POINTS,
    scope: Scope = Scope.WINDOW,
    **options: Any,
) -> CheckSpec:
    return CheckSpec(name or kind, kind, points, action, scope, options)


class Scripted:
    """A model-based check that says what it is told, counting its calls."""

    needs_model = True

    def __init__(self, spec: CheckSpec, findings: list[Finding] | None = None) -> None:
        self.spec = spec
        self.findings = findings or []
        self.calls: list[str] = []
        self.down = ""

    async def inspect(self, text: str, subject: Subject) -> list[Finding]:
        self.calls.append(text)
        if self.down:
            raise GuardrailUnavailable(self.spec.name, self.down)
        return list(self.findings)
