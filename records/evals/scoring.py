"""A run's numbers from its case results: the aggregate, the comparison with a baseline
run (by case id) and the gate's verdict, each reason it fails named."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import replace
from datetime import datetime

from records.evals.model import Aggregate, CaseResult, Comparison, EvalRun, EvalRunState, Gate

NAMED = 50
"""A gate failure names at most this many cases."""


def aggregate(results: Sequence[CaseResult]) -> Aggregate:
    """Pass rates (of the cases, and of each grader by name and by kind, over the cases
    that have it), tokens, cost and the median seconds of a case."""
    passed = sum(1 for r in results if r.passed)
    tally: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for result in results:
        for grade in result.graders:
            keys = {grade.name, grade.kind}
            for key in keys:
                tally[key][0] += int(grade.passed)
                tally[key][1] += 1
    return Aggregate(
        cases=len(results),
        passed=passed,
        pass_rate=passed / len(results) if results else 0.0,
        by_grader={key: won / seen for key, (won, seen) in sorted(tally.items())},
        total_tokens=sum(r.usage.total_tokens for r in results),
        cost_micros=sum(r.usage.cost_micros for r in results),
        p50_seconds=statistics.median([r.seconds for r in results]) if results else 0.0,
    )


def compare(results: Sequence[CaseResult], baseline: EvalRun) -> Comparison:
    """This run's results against the baseline's, over the cases both have (by id)."""
    before = {r.case_id: r.passed for r in baseline.results}
    regressed = tuple(r.case_id for r in results if before.get(r.case_id) and not r.passed)
    improved = tuple(r.case_id for r in results if r.passed and before.get(r.case_id) is False)
    rate = sum(1 for r in results if r.passed) / len(results) if results else 0.0
    return Comparison(
        baseline_run_id=baseline.eval_run_id,
        baseline_pass_rate=baseline.aggregate.pass_rate,
        pass_rate_delta=rate - baseline.aggregate.pass_rate,
        regressed=regressed,
        improved=improved,
    )


def _named(case_ids: Sequence[str]) -> str:
    shown = ", ".join(case_ids[:NAMED])
    return shown + (f" and {len(case_ids) - NAMED} more" if len(case_ids) > NAMED else "")


def finished(
    run: EvalRun, results: Sequence[CaseResult], baseline: EvalRun | None, at: datetime
) -> EvalRun:
    """`run` once every case ran: its results, numbers, comparison and the gate's verdict."""
    totals = aggregate(results)
    comparison = compare(results, baseline) if baseline is not None else None
    failures = judge_gate(
        run.gate, totals, comparison, [r.case_id for r in results if not r.passed]
    )
    return replace(
        run,
        state=EvalRunState.FINISHED,
        results=tuple(results),
        aggregate=totals,
        comparison=comparison,
        gate_passed=not failures,
        gate_failures=tuple(failures),
        finished_at=at,
    )


def judge_gate(
    gate: Gate,
    totals: Aggregate,
    comparison: Comparison | None,
    failed: Sequence[str] = (),
) -> list[str]:
    """Each reason the gate fails (none: it passed); `failed` names the failed cases."""
    failures: list[str] = []
    least = gate.min_pass_rate or 1.0
    if totals.pass_rate < least:
        failures.append(
            f"pass rate {totals.pass_rate:.3f} is below {least:.3f} "
            f"({totals.passed} of {totals.cases} cases passed; failed: {_named(failed)})"
        )
    for threshold in gate.thresholds:
        rate = totals.by_grader.get(threshold.grader)
        if rate is None:
            failures.append(f"no case has the grader {threshold.grader!r}")
        elif rate < threshold.min_pass_rate:
            failures.append(
                f"grader {threshold.grader!r} passed {rate:.3f} of its cases, below "
                f"{threshold.min_pass_rate:.3f}"
            )
    if comparison is None:
        return failures
    if -comparison.pass_rate_delta > gate.max_regression:
        failures.append(
            f"pass rate fell {-comparison.pass_rate_delta:.3f} below the baseline "
            f"{comparison.baseline_run_id} ({comparison.baseline_pass_rate:.3f}), more than "
            f"{gate.max_regression:.3f}"
        )
    if len(comparison.regressed) > gate.allowed_regressed_cases:
        failures.append(
            f"{len(comparison.regressed)} cases regressed (allowed "
            f"{gate.allowed_regressed_cases}): {_named(comparison.regressed)}"
        )
    return failures
