"""A run's numbers: the aggregate by case, grader name and kind; the comparison with a
baseline by case id; the gate's verdict naming each reason (and the regressed cases)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from records.evals.model import (
    Aggregate,
    CaseResult,
    EvalRun,
    EvalRunState,
    Gate,
    GraderResult,
    GraderThreshold,
)
from records.evals.scoring import aggregate, compare, finished, judge_gate
from records.tasks import TokenUsage

AT = datetime(2026, 12, 7, tzinfo=UTC)


def _result(case_id: str, *grades: tuple[str, str, bool], seconds: float = 1.0) -> CaseResult:
    graders = tuple(GraderResult(n, k, p, float(p)) for n, k, p in grades)
    return CaseResult(
        case_id,
        passed=all(p for _, _, p in grades),
        graders=graders,
        usage=TokenUsage(prompt_tokens=10, completion_tokens=5, cost_micros=2),
        seconds=seconds,
    )


RESULTS = [
    _result("a", ("exact", "exact", True), ("cheap", "ceiling", True), seconds=1.0),
    _result("b", ("exact", "exact", False), ("cheap", "ceiling", True), seconds=3.0),
    _result("c", ("tone", "judge", True), seconds=2.0),
    _result("d", ("tone", "judge", False), seconds=9.0),
]


def test_the_aggregate_counts_cases_and_each_grader_by_name_and_kind() -> None:
    totals = aggregate(RESULTS)
    assert (totals.cases, totals.passed, totals.pass_rate) == (4, 2, 0.5)
    assert totals.by_grader == {
        "cheap": 1.0,
        "ceiling": 1.0,
        "exact": 0.5,
        "judge": 0.5,
        "tone": 0.5,
    }
    assert (totals.total_tokens, totals.cost_micros, totals.p50_seconds) == (60, 8, 2.5)
    assert aggregate([]) == Aggregate()


def _run(results: list[CaseResult]) -> EvalRun:
    """A finished baseline run of `results`."""
    return finished(EvalRun("evr_base", "acme", "support@2"), results, None, AT)


def test_the_comparison_names_regressed_and_improved_cases_by_id() -> None:
    baseline = _run([_result("a", ("e", "exact", True)), _result("b", ("e", "exact", False))])
    now = [
        _result("a", ("e", "exact", False)),
        _result("b", ("e", "exact", True)),
        _result("new", ("e", "exact", False)),
    ]
    comparison = compare(now, baseline)
    assert comparison.regressed == ("a",)
    assert comparison.improved == ("b",)
    assert comparison.baseline_pass_rate == 0.5
    assert comparison.pass_rate_delta == pytest.approx(1 / 3 - 0.5)


def test_the_gate_says_each_reason_it_fails() -> None:
    baseline = _run([_result(c, ("e", "exact", True)) for c in "abcd"])
    now = RESULTS
    gate = Gate(
        min_pass_rate=0.75,
        thresholds=(GraderThreshold("judge", 0.9), GraderThreshold("missing", 0.1)),
        max_regression=0.2,
        allowed_regressed_cases=1,
    )
    comparison = compare(now, baseline)
    failures = judge_gate(gate, aggregate(now), comparison, ["b", "d"])
    assert failures == [
        "pass rate 0.500 is below 0.750 (2 of 4 cases passed; failed: b, d)",
        "grader 'judge' passed 0.500 of its cases, below 0.900",
        "no case has the grader 'missing'",
        "pass rate fell 0.500 below the baseline evr_base (1.000), more than 0.200",
        "2 cases regressed (allowed 1): b, d",
    ]


def test_a_min_pass_rate_of_zero_means_every_case() -> None:
    one_failed = [_result("a", ("e", "exact", True)), _result("b", ("e", "exact", False))]
    assert judge_gate(Gate(min_pass_rate=0.0), aggregate(one_failed), None, ["b"]) != []
    assert judge_gate(Gate(min_pass_rate=0.5), aggregate(one_failed), None, ["b"]) == []


def test_a_finished_run_holds_its_results_numbers_and_verdict() -> None:
    baseline = _run([_result("a", ("e", "exact", True))])
    run = EvalRun("evr_1", "acme", "support@3", gate=Gate(max_regression=1.0))
    ended = finished(run, [_result("a", ("e", "exact", False))], baseline, AT)
    assert ended.state is EvalRunState.FINISHED
    assert ended.finished_at == AT
    assert not ended.gate_passed
    assert ended.comparison is not None
    assert ended.comparison.regressed == ("a",)
    assert ended.gate_failures[-1] == "1 cases regressed (allowed 0): a"
