"""What a dataset, a run's cases and its gate must be: every problem found at once, each
a field violation naming the case (by position and id) and the field."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import re2
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError

from core.errors import FieldViolation, InvalidArgumentError
from records.evals.model import EvalCase, Gate, Grader, GraderKind

MAX_CASES = 1000
MAX_CASE_ID = 128
MAX_INPUT_CHARS = 100_000
MAX_GRADERS = 20
MAX_TURNS = 100
TURN_ROLES = ("user", "assistant")


def with_ids(cases: Sequence[EvalCase], first: int = 1) -> tuple[EvalCase, ...]:
    """The cases, those without an id given `case-N` (N their position from `first`)."""
    return tuple(
        case if case.case_id else replace(case, case_id=f"case-{index}")
        for index, case in enumerate(cases, first)
    )


def task_context(case: EvalCase) -> dict[str, Any]:
    """The context of a case's task: its own, with its earlier turns as `earlier_turns`."""
    context = dict(case.context)
    if case.turns:
        context["earlier_turns"] = [{"role": t.role, "content": t.content} for t in case.turns]
    return context


def check_cases(
    cases: Sequence[EvalCase],
    where: str = "cases",
    *,
    max_input: int = MAX_INPUT_CHARS,
    max_context: int | None = None,
) -> None:
    """InvalidArgumentError listing every problem of `cases` (ids already assigned); an
    input longer than `max_input` characters, a task context (`task_context`) larger than
    `max_context` bytes as JSON are problems too (a task's own limits: the case could
    never start)."""
    problems: list[FieldViolation] = []
    if len(cases) > MAX_CASES:
        problems.append(FieldViolation(where, f"has more than {MAX_CASES} cases"))
    seen: set[str] = set()
    for index, case in enumerate(cases):
        at = f"{where}[{index}]"
        found = case_problems(case, seen)
        if len(case.input) > max_input:
            found.append(("input", f"is longer than a task's {max_input} characters"))
        size = len(json.dumps(task_context(case), separators=(",", ":"), default=str).encode())
        if max_context is not None and size > max_context:
            found.append(("context", f"with its turns is {size} bytes; at most {max_context}"))
        problems += [
            FieldViolation(f"{at}.{name}", f"case {case.case_id!r}: {why}") for name, why in found
        ]
        seen.add(case.case_id)
    if problems:
        raise InvalidArgumentError(problems)


def case_problems(case: EvalCase, seen: set[str]) -> list[tuple[str, str]]:
    """(field within the case, what is wrong) for each problem of one case."""
    found: list[tuple[str, str]] = []
    if not 1 <= len(case.case_id) <= MAX_CASE_ID:
        found.append(("case_id", f"is 1 to {MAX_CASE_ID} characters"))
    elif case.case_id in seen:
        found.append(("case_id", "is not unique in the dataset"))
    if not case.input.strip() and not case.from_task_id:
        found.append(("input", "is required (or from_task_id)"))
    if len(case.input) > MAX_INPUT_CHARS:
        found.append(("input", f"is longer than {MAX_INPUT_CHARS} characters"))
    if len(case.turns) > MAX_TURNS:
        found.append(("turns", f"has more than {MAX_TURNS} turns"))
    for index, turn in enumerate(case.turns):
        if turn.role not in TURN_ROLES:
            found.append((f"turns[{index}].role", "is user or assistant"))
    if len(case.graders) > MAX_GRADERS:
        found.append(("graders", f"has more than {MAX_GRADERS} graders"))
    names: set[str] = set()
    for index, grader in enumerate(case.graders):
        if grader.label in names:
            found.append((f"graders[{index}].name", f"{grader.label!r} is not unique"))
        names.add(grader.label)
        found += [(f"graders[{index}].{f}", why) for f, why in grader_problems(grader)]
    return found


def grader_problems(grader: Grader) -> list[tuple[str, str]]:
    """(field within the grader, what is wrong) for each problem of one grader."""
    kind = grader.kind
    if kind in (GraderKind.EXACT, GraderKind.CONTAINS) and not grader.expected:
        return [(kind.value, "is required")]
    if kind is GraderKind.REGEX:
        return _regex_problems(grader.expected)
    if kind is GraderKind.JSON_SCHEMA:
        try:
            Draft202012Validator.check_schema(dict(grader.schema or {}))
        except SchemaError as error:
            return [("json_schema", f"is not a valid JSON Schema: {error.message}")]
        return []
    if kind is GraderKind.TRAJECTORY and not all(grader.tools):
        return [("trajectory.tools", "names a tool by an empty name")]
    if kind is GraderKind.JUDGE:
        found = [] if grader.rubric.strip() else [("judge.rubric", "is required")]
        if not 0 < grader.pass_score <= 1:
            found.append(("judge.pass_score", "is 0 to 1"))
        return found
    if kind is GraderKind.CEILING:
        limits = (grader.max_tokens, grader.max_cost_micros, grader.max_seconds)
        if grader.max_seconds < 0 or not any(limits):
            return [("ceiling", "sets at least one limit (tokens, cost or duration)")]
    return []


def _regex_problems(pattern: str) -> list[tuple[str, str]]:
    if not pattern:
        return [("regex", "is required")]
    try:
        re2.compile(pattern)
    except re2.error as error:
        return [("regex", f"is not an RE2 expression: {error}")]
    return []


def check_gate(gate: Gate, where: str = "gate") -> None:
    """InvalidArgumentError for a share out of 0 to 1 or a threshold without a grader."""
    problems: list[FieldViolation] = []
    for name, value in (
        ("min_pass_rate", gate.min_pass_rate),
        ("max_regression", gate.max_regression),
    ):
        if not (math.isfinite(value) and 0 <= value <= 1):
            problems.append(FieldViolation(f"{where}.{name}", "is 0 to 1"))
    for index, threshold in enumerate(gate.thresholds):
        at = f"{where}.thresholds[{index}]"
        if not threshold.grader:
            problems.append(FieldViolation(f"{at}.grader", "is required"))
        if not (math.isfinite(threshold.min_pass_rate) and 0 <= threshold.min_pass_rate <= 1):
            problems.append(FieldViolation(f"{at}.min_pass_rate", "is 0 to 1"))
    if problems:
        raise InvalidArgumentError(problems)
