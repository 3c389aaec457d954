"""Plans: what the planner proposes, and the checks a plan must pass before it runs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from records.tools.model import ToolSpec

MAX_PLAN_STEPS = 50

PLAN_JSON_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "steps": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "id": {"type": "string"},
                    "description": {"type": "string"},
                    "tool": {"type": ["string", "null"]},
                    "arguments": {"type": "object"},
                    "expected_output": {"type": "string"},
                    "estimated_seconds": {"type": "number"},
                    "depends_on": {"type": "array", "items": {"type": "string"}},
                    "agent": {"type": ["string", "null"]},
                },
                "required": ["id", "description"],
            },
        }
    },
    "required": ["steps"],
}


@dataclass(frozen=True, slots=True)
class PlanStep:
    """One step of a plan."""

    id: str
    description: str
    tool: str = ""
    """The tool the step calls; empty when the executor model does the step."""
    arguments: Mapping[str, Any] = field(default_factory=dict)
    expected_output: str = ""
    estimated_seconds: float = 0.0
    depends_on: tuple[str, ...] = ()
    agent: str = ""
    """The delegate (an `agent.<id>` tool's id) that runs the step as its child task."""


@dataclass(frozen=True, slots=True)
class Plan:
    """Steps in an order that respects their dependencies."""

    steps: tuple[PlanStep, ...]
    revision: int = 1

    @property
    def estimated_total_seconds(self) -> float:
        return sum(s.estimated_seconds for s in self.steps)

    def step(self, step_id: str) -> PlanStep:
        for step in self.steps:
            if step.id == step_id:
                return step
        raise KeyError(step_id)


class PlanProblems(ValueError):  # noqa: N818 - a list of findings, not a fault
    """A proposed plan failed validation; `problems` says why, one line each."""

    def __init__(self, problems: list[str], *, too_large: bool = False) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems
        self.too_large = too_large


def parse_plan(
    data: Any,
    tools: Mapping[str, ToolSpec],
    *,
    max_steps: int = MAX_PLAN_STEPS,
    revision: int = 1,
    done: frozenset[str] = frozenset(),
) -> Plan:
    """Validate the planner's JSON and return a plan ordered by dependencies.

    `done` are ids of steps completed under an earlier plan revision: a
    revised plan may depend on them without repeating them.
    """
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        raise PlanProblems(['the plan must be a JSON object with a "steps" list'])
    raw_steps: list[Any] = data["steps"]
    if not raw_steps:
        raise PlanProblems(["the plan has no steps"])
    if len(raw_steps) > max_steps:
        raise PlanProblems(
            [f"the plan has {len(raw_steps)} steps; at most {max_steps} are allowed"],
            too_large=True,
        )
    problems: list[str] = []
    steps: list[PlanStep] = []
    seen: set[str] = set()
    for index, raw in enumerate(raw_steps, 1):
        step = _step(raw, index, tools, seen | done, problems)
        if step is not None:
            seen.add(step.id)
            steps.append(step)
    known = seen | done
    for step in steps:
        for dep in step.depends_on:
            if dep not in known:
                problems.append(f"step {step.id!r} depends on unknown step {dep!r}")
            if dep == step.id:
                problems.append(f"step {step.id!r} depends on itself")
    if problems:
        raise PlanProblems(problems)
    ordered = _topological(steps, done)
    return Plan(steps=tuple(ordered), revision=revision)


def _step(
    raw: Any, index: int, tools: Mapping[str, ToolSpec], taken: set[str], problems: list[str]
) -> PlanStep | None:
    """One step of the planner's JSON; what is wrong with it goes to `problems`. None when
    it is not an object or has no id (nothing else can refer to it)."""
    where = f"step {index}"
    if not isinstance(raw, dict):
        problems.append(f"{where} is not an object")
        return None
    step_id = str(raw.get("id") or "").strip()
    description = str(raw.get("description") or "").strip()
    if not step_id:
        problems.append(f"{where} has no id")
        return None
    where = f"step {step_id!r}"
    if step_id in taken:
        problems.append(f"{where}: the id is used twice")
    if not description:
        problems.append(f"{where} has no description")
    tool = str(raw.get("tool") or "").strip()
    arguments = raw.get("arguments") or {}
    if not isinstance(arguments, dict):
        problems.append(f"{where}: arguments must be an object")
        arguments = {}
    if tool and tool not in tools:
        available = ", ".join(sorted(tools)) or "none"
        problems.append(f"{where}: unknown or unavailable tool {tool!r}; available: {available}")
    agent = str(raw.get("agent") or "").strip()
    if agent and tool:
        problems.append(f"{where}: a step names a tool or an agent, not both")
    if agent and f"agent.{agent}" not in tools:
        problems.append(f"{where}: {agent!r} is not an agent this task may delegate to")
    depends = raw.get("depends_on") or []
    if not isinstance(depends, list) or not all(isinstance(d, str) for d in depends):
        problems.append(f"{where}: depends_on must be a list of step ids")
        depends = []
    try:
        estimate = max(0.0, float(raw.get("estimated_seconds") or 0.0))
    except (TypeError, ValueError):
        problems.append(f"{where}: estimated_seconds must be a number")
        estimate = 0.0
    return PlanStep(
        id=step_id,
        description=description,
        tool=tool,
        arguments=arguments,
        expected_output=str(raw.get("expected_output") or ""),
        estimated_seconds=estimate,
        depends_on=tuple(dict.fromkeys(depends)),
        agent=agent,
    )


def _topological(steps: list[PlanStep], done: frozenset[str]) -> list[PlanStep]:
    by_id = {s.id: s for s in steps}
    placed: set[str] = set(done)
    ordered: list[PlanStep] = []
    remaining = list(steps)
    while remaining:
        ready = [s for s in remaining if all(d in placed for d in s.depends_on)]
        if not ready:
            cycle = ", ".join(sorted(s.id for s in remaining))
            raise PlanProblems([f"the dependencies of steps {cycle} form a cycle"])
        for step in ready:
            ordered.append(step)
            placed.add(step.id)
        remaining = [s for s in remaining if s.id not in placed]
    assert len(ordered) == len(by_id)
    return ordered
