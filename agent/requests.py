"""The checks a task request (`records.requests.TaskRequest`) passes on entry."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping, Sequence
from typing import Any

from agent.limits import (
    DEFAULT_MAX_ITERATIONS,
    MAX_CONTEXT_BYTES,
    MAX_ITERATIONS_LIMIT,
    MAX_TASK_CHARS,
)
from core.errors import FieldViolation, InvalidArgumentError
from core.identity import CallContext
from core.names import tool_name_problem
from records.conversations.model import conversation_id_problem
from records.execution import ExecutionMode
from records.plan import Plan, PlanProblems, parse_plan
from records.requests import TaskRequest
from records.tools.model import ToolSpec
from tools.registry import ToolRegistry

MAX_LABELS = 16
MAX_LABEL_VALUE = 256
LABEL_KEY = re.compile(r"^[a-z0-9_.:/-]{1,63}$")


def label_violations(labels: Mapping[str, str], field_name: str = "labels") -> list[FieldViolation]:
    """What is wrong with a set of labels (also used for label filters)."""
    found: list[FieldViolation] = []
    if len(labels) > MAX_LABELS:
        found.append(FieldViolation(field_name, f"has {len(labels)} labels; at most {MAX_LABELS}"))
    for key, value in sorted(labels.items()):
        if not LABEL_KEY.fullmatch(key):
            found.append(
                FieldViolation(f"{field_name}[{key[:63]}]", "keys are 1 to 63 of [a-z0-9_.:/-]")
            )
        elif len(value) > MAX_LABEL_VALUE:
            found.append(
                FieldViolation(
                    f"{field_name}[{key}]", f"values are at most {MAX_LABEL_VALUE} characters"
                )
            )
    return found


def validate_request(
    registry: ToolRegistry,
    goal: str,
    tools: Sequence[str],
    context: Mapping[str, Any],
    call: CallContext,
    max_iterations: int = 0,
    request: TaskRequest | None = None,
) -> tuple[dict[str, ToolSpec], int]:
    """The tools the task may use and its iteration limit; InvalidArgumentError listing
    every problem otherwise (the goal 1-5,000 characters, context at most 10 KB as JSON,
    max_iterations 1-50 or 0 for the default, tool names known and allowed)."""
    violations: list[FieldViolation] = []
    if not goal.strip():
        violations.append(FieldViolation("task", "is required"))  # as the API names it
    elif len(goal) > MAX_TASK_CHARS:
        violations.append(
            FieldViolation(
                "task", f"is {len(goal)} characters; at most {MAX_TASK_CHARS} are allowed"
            )
        )
    size = len(json.dumps(dict(context), separators=(",", ":"), default=str).encode())
    if size > MAX_CONTEXT_BYTES:
        violations.append(
            FieldViolation(
                "context", f"is {size} bytes as JSON; at most {MAX_CONTEXT_BYTES} are allowed"
            )
        )
    if max_iterations and not 1 <= max_iterations <= MAX_ITERATIONS_LIMIT:
        violations.append(
            FieldViolation(
                "max_iterations",
                f"must be between 1 and {MAX_ITERATIONS_LIMIT} (0 for the default)",
            )
        )
    if request is not None:
        violations.extend(label_violations(request.labels))
        for name, seconds in (
            ("timeout", request.timeout_seconds),
            ("wait_timeout", request.wait_timeout_seconds),
        ):
            if seconds < 0 or not math.isfinite(seconds):
                violations.append(FieldViolation(name, "must be a positive duration"))
        conversation = request.conversation_id
        if conversation and (problem := conversation_id_problem(conversation)) is not None:
            violations.append(FieldViolation("conversation_id", problem))
    visible = {spec.name: spec for spec in registry.visible_to(call)}
    chosen: dict[str, ToolSpec] = {}
    for index, name in enumerate(tools):
        if name in visible:
            chosen[name] = visible[name]
        elif (problem := tool_name_problem(name)) is not None:
            violations.append(FieldViolation(f"tools[{index}]", problem))
        else:
            violations.append(
                FieldViolation(f"tools[{index}]", f"no tool named {name!r} is available to you")
            )
    if violations:
        raise InvalidArgumentError(violations)
    return (chosen or visible), (max_iterations or DEFAULT_MAX_ITERATIONS)


MAX_STEP_ID_CHARS = 64
MAX_STEP_ARGUMENT_BYTES = 10_000


def given_plan(request: TaskRequest, tools: Mapping[str, ToolSpec]) -> Plan | None:
    """The plan the caller asked to run as given, validated as the planner's output is and
    held to size limits per step; None without one. InvalidArgumentError lists every
    problem (as violations of `plan`, or of `mode` when the mode cannot run a plan)."""
    if request.plan is None:
        return None
    violations: list[FieldViolation] = []
    if request.mode not in (ExecutionMode.AUTO, ExecutionMode.PLAN_AND_EXECUTE):
        violations.append(
            FieldViolation("mode", "a given plan runs in plan-and-execute mode (or leave it unset)")
        )
    steps = request.plan.get("steps")
    for index, step in enumerate(steps if isinstance(steps, list) else []):
        violations.extend(_step_size_violations(index, step))
    if not violations:
        try:
            return parse_plan(request.plan, tools)
        except PlanProblems as problems:
            violations.extend(FieldViolation("plan", problem) for problem in problems.problems)
    raise InvalidArgumentError(violations)


def _step_size_violations(index: int, step: Any) -> list[FieldViolation]:
    where = f"plan.steps[{index}]"
    if not isinstance(step, Mapping):
        return []  # parse_plan says what is wrong with it
    found: list[FieldViolation] = []
    if len(str(step.get("id") or "")) > MAX_STEP_ID_CHARS:
        found.append(FieldViolation(f"{where}.id", f"is over {MAX_STEP_ID_CHARS} characters"))
    for name in ("description", "expected_output"):
        if len(str(step.get(name) or "")) > MAX_TASK_CHARS:
            found.append(FieldViolation(f"{where}.{name}", f"is over {MAX_TASK_CHARS} characters"))
    estimate = step.get("estimated_seconds") or 0.0
    if isinstance(estimate, float) and not math.isfinite(estimate):
        found.append(FieldViolation(f"{where}.estimated_seconds", "must be a finite number"))
    size = len(json.dumps(step.get("arguments") or {}, default=str).encode())
    if size > MAX_STEP_ARGUMENT_BYTES:
        found.append(
            FieldViolation(
                f"{where}.arguments",
                f"is {size} bytes as JSON; at most {MAX_STEP_ARGUMENT_BYTES} are allowed",
            )
        )
    return found
