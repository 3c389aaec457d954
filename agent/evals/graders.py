"""The graders that need no model: each reads what a case's task did (`Outcome`) and
answers a `GraderResult` (score 1 or 0, and why when it fails)."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field

import re2
from jsonschema import Draft202012Validator
from jsonschema.exceptions import SchemaError
from referencing.exceptions import Unresolvable

from records.evals.model import Grader, GraderKind, GraderResult, TrajectoryMatch
from records.tasks import TokenUsage

SHOWN = 200
"""How much of an answer a reason quotes."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a case's task did: its answer, the tools it called in order, its spending."""

    answer: str
    tool_calls: tuple[str, ...] = ()
    usage: TokenUsage = field(default_factory=TokenUsage)
    seconds: float = 0.0


def _result(grader: Grader, passed: bool, reason: str = "") -> GraderResult:
    return GraderResult(grader.label, grader.kind.value, passed, 1.0 if passed else 0.0, reason)


def _quoted(text: str) -> str:
    return repr(text if len(text) <= SHOWN else text[:SHOWN] + "…")


def grade(grader: Grader, outcome: Outcome) -> GraderResult:
    """The verdict of a grader that needs no model (ValueError for the judge)."""
    answer = outcome.answer
    kind = grader.kind
    if kind is GraderKind.EXACT:
        ok = answer.strip() == grader.expected.strip()
        return _result(grader, ok, "" if ok else f"expected {_quoted(grader.expected)}")
    if kind is GraderKind.CONTAINS:
        ok = grader.expected in answer
        return _result(grader, ok, "" if ok else f"does not contain {_quoted(grader.expected)}")
    if kind is GraderKind.REGEX:
        ok = re2.search(grader.expected, answer) is not None
        return _result(grader, ok, "" if ok else f"does not match {grader.expected!r}")
    if kind is GraderKind.JSON_SCHEMA:
        return _result(grader, *_json_schema(grader, answer))
    if kind is GraderKind.TRAJECTORY:
        return _result(grader, *_trajectory(grader, outcome.tool_calls))
    if kind is GraderKind.CEILING:
        return _result(grader, *_ceiling(grader, outcome))
    raise ValueError(f"the {kind.value} grader needs a model (agent.evals.judge)")


def _json_schema(grader: Grader, answer: str) -> tuple[bool, str]:
    try:
        value = json.loads(answer)
    except ValueError as error:
        return False, f"the answer is not JSON: {error}"
    try:
        problem = next(Draft202012Validator(dict(grader.schema or {})).iter_errors(value), None)
    except (Unresolvable, SchemaError, RecursionError) as error:  # the schema's own fault
        return False, f"the schema cannot be applied: {type(error).__name__}: {error}"[:500]
    if problem is None:
        return True, ""
    where = "/".join(str(p) for p in problem.absolute_path) or "(the answer)"
    return False, f"{where}: {problem.message}"


def _trajectory(grader: Grader, calls: tuple[str, ...]) -> tuple[bool, str]:
    wanted = grader.tools
    if grader.match is TrajectoryMatch.SUBSET:
        missing = [tool for tool in dict.fromkeys(wanted) if tool not in calls]
        ok = not missing
        reason = f"never called {', '.join(missing)}"
    elif grader.match is TrajectoryMatch.ANY_ORDER:
        ok = Counter(calls) == Counter(wanted)
        reason = f"expected [{', '.join(wanted)}] in any order"
    else:
        ok = calls == wanted
        reason = f"expected [{', '.join(wanted)}] in this order"
    return ok, "" if ok else f"{reason} (called: [{', '.join(calls)}])"


def _ceiling(grader: Grader, outcome: Outcome) -> tuple[bool, str]:
    over: list[str] = []
    tokens, cost = outcome.usage.total_tokens, outcome.usage.cost_micros
    if grader.max_tokens and tokens > grader.max_tokens:
        over.append(f"{tokens} tokens > {grader.max_tokens}")
    if grader.max_cost_micros and cost > grader.max_cost_micros:
        over.append(f"cost {cost} micros > {grader.max_cost_micros}")
    if grader.max_seconds and outcome.seconds > grader.max_seconds:
        over.append(f"{outcome.seconds:.2f} s > {grader.max_seconds:g} s")
    return not over, "; ".join(over)
