"""The JSON form of cases, results and gates, as the SQL stores keep them (one text
column each: a case's graders, a run's results, its aggregate, comparison and gate)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from records.evals.model import (
    Aggregate,
    CaseResult,
    Comparison,
    EvalCase,
    EvalTurn,
    Gate,
    Grader,
    GraderKind,
    GraderResult,
    GraderThreshold,
    ReplayReport,
    TrajectoryMatch,
)
from records.tasks import TokenUsage

JSON = dict[str, Any]


def grader_to_json(grader: Grader) -> JSON:
    data = asdict(grader)
    data["kind"] = grader.kind.value
    data["match"] = grader.match.value
    data["tools"] = list(grader.tools)
    data["schema"] = dict(grader.schema) if grader.schema is not None else None
    return data


def grader_from_json(data: Mapping[str, Any]) -> Grader:
    values = dict(data)
    values["kind"] = GraderKind(values["kind"])
    values["match"] = TrajectoryMatch(values.get("match", "in_order"))
    values["tools"] = tuple(values.get("tools", ()))
    return Grader(**values)


def case_to_json(case: EvalCase) -> JSON:
    return {
        "case_id": case.case_id,
        "input": case.input,
        "context": dict(case.context),
        "turns": [{"role": t.role, "content": t.content} for t in case.turns],
        "graders": [grader_to_json(g) for g in case.graders],
        "from_task_id": case.from_task_id,
    }


def case_from_json(data: Mapping[str, Any]) -> EvalCase:
    return EvalCase(
        case_id=data["case_id"],
        input=data.get("input", ""),
        context=dict(data.get("context", {})),
        turns=tuple(EvalTurn(t["role"], t["content"]) for t in data.get("turns", ())),
        graders=tuple(grader_from_json(g) for g in data.get("graders", ())),
        from_task_id=data.get("from_task_id", ""),
    )


def cases_to_json(cases: Sequence[EvalCase]) -> list[JSON]:
    return [case_to_json(c) for c in cases]


def cases_from_json(data: Sequence[Mapping[str, Any]]) -> tuple[EvalCase, ...]:
    return tuple(case_from_json(c) for c in data)


def result_to_json(result: CaseResult) -> JSON:
    return asdict(result)


def result_from_json(data: Mapping[str, Any]) -> CaseResult:
    replay = data.get("replay")
    return CaseResult(
        case_id=data["case_id"],
        task_id=data.get("task_id", ""),
        passed=bool(data.get("passed")),
        graders=tuple(GraderResult(**g) for g in data.get("graders", ())),
        answer=data.get("answer", ""),
        usage=TokenUsage(**data.get("usage", {})),
        seconds=float(data.get("seconds", 0.0)),
        error=data.get("error", ""),
        replay=ReplayReport(**replay) if replay else None,
    )


def aggregate_to_json(aggregate: Aggregate) -> JSON:
    data = asdict(aggregate)
    data["by_grader"] = dict(aggregate.by_grader)
    return data


def aggregate_from_json(data: Mapping[str, Any]) -> Aggregate:
    return Aggregate(**{**data, "by_grader": dict(data.get("by_grader", {}))})


def comparison_to_json(comparison: Comparison | None) -> JSON | None:
    return asdict(comparison) if comparison is not None else None


def comparison_from_json(data: Mapping[str, Any] | None) -> Comparison | None:
    if not data:
        return None
    return Comparison(
        baseline_run_id=data["baseline_run_id"],
        baseline_pass_rate=float(data.get("baseline_pass_rate", 0.0)),
        pass_rate_delta=float(data.get("pass_rate_delta", 0.0)),
        regressed=tuple(data.get("regressed", ())),
        improved=tuple(data.get("improved", ())),
    )


def gate_to_json(gate: Gate) -> JSON:
    return asdict(gate)


def gate_from_json(data: Mapping[str, Any]) -> Gate:
    return Gate(
        min_pass_rate=float(data.get("min_pass_rate", 1.0)),
        thresholds=tuple(GraderThreshold(**t) for t in data.get("thresholds", ())),
        max_regression=float(data.get("max_regression", 0.0)),
        allowed_regressed_cases=int(data.get("allowed_regressed_cases", 0)),
    )
