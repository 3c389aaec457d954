"""The graders that need no model: each kind passes what it should and fails the rest,
saying why."""

from __future__ import annotations

import pytest

from agent.evals.graders import Outcome, grade
from records.evals.model import Grader, GraderKind, TrajectoryMatch
from records.tasks import TokenUsage

K = GraderKind


def test_exact_compares_the_stripped_answer() -> None:
    grader = Grader(K.EXACT, expected="Paris")
    assert grade(grader, Outcome("  Paris\n")).passed
    failed = grade(grader, Outcome("paris"))
    assert not failed.passed
    assert failed.score == 0.0
    assert failed.reason == "expected 'Paris'"
    assert failed.name == "exact"
    assert failed.kind == "exact"


def test_contains_is_case_sensitive_and_named_as_given() -> None:
    grader = Grader(K.CONTAINS, name="mentions-refund", expected="refund")
    assert grade(grader, Outcome("a refund is due")).passed
    failed = grade(grader, Outcome("A Refund is due"))
    assert (failed.passed, failed.name, failed.reason) == (
        False,
        "mentions-refund",
        "does not contain 'refund'",
    )


def test_regex_searches_with_re2() -> None:
    grader = Grader(K.REGEX, expected=r"ORD-\d{5}\b")
    assert grade(grader, Outcome("your order is ORD-12345.")).passed
    assert not grade(grader, Outcome("ORD-1234")).passed


def test_json_schema_needs_json_valid_against_the_schema() -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    grader = Grader(K.JSON_SCHEMA, schema=schema)
    assert grade(grader, Outcome('{"n": 3}')).passed
    wrong_type = grade(grader, Outcome('{"n": "3"}'))
    assert not wrong_type.passed
    assert wrong_type.reason.startswith("n: '3' is not of type 'integer'")
    not_json = grade(grader, Outcome("three"))
    assert not not_json.passed
    assert not_json.reason.startswith("the answer is not JSON")


def test_a_schema_that_cannot_be_applied_fails_its_grade_and_nothing_else() -> None:
    """A `$ref` to nowhere passes the schema's own check; at grading it fails this grade,
    saying why, instead of raising (which would end every case of the run)."""
    grader = Grader(K.JSON_SCHEMA, schema={"$ref": "#/$defs/nowhere"})
    failed = grade(grader, Outcome('{"n": 3}'))
    assert not failed.passed
    assert failed.reason.startswith("the schema cannot be applied: ")
    assert "nowhere" in failed.reason


@pytest.mark.parametrize(
    ("match", "calls", "passed"),
    [
        (TrajectoryMatch.IN_ORDER, ("search", "fetch"), True),
        (TrajectoryMatch.IN_ORDER, ("fetch", "search"), False),
        (TrajectoryMatch.IN_ORDER, ("search", "fetch", "fetch"), False),
        (TrajectoryMatch.ANY_ORDER, ("fetch", "search"), True),
        (TrajectoryMatch.ANY_ORDER, ("fetch", "search", "calculator"), False),
        (TrajectoryMatch.SUBSET, ("calculator", "fetch", "search"), True),
        (TrajectoryMatch.SUBSET, ("search",), False),
    ],
)
def test_trajectory_compares_the_tools_called_in_order(
    match: TrajectoryMatch, calls: tuple[str, ...], passed: bool
) -> None:
    grader = Grader(K.TRAJECTORY, tools=("search", "fetch"), match=match)
    result = grade(grader, Outcome("", calls))
    assert result.passed is passed
    if not passed:
        assert f"(called: [{', '.join(calls)}])" in result.reason


def test_a_failed_trajectory_says_what_was_expected_and_what_was_called() -> None:
    tools = ("search", "fetch")
    subset = Grader(K.TRAJECTORY, tools=tools, match=TrajectoryMatch.SUBSET)
    assert grade(subset, Outcome("", ("search",))).reason == "never called fetch (called: [search])"
    in_order = Grader(K.TRAJECTORY, tools=tools)
    assert grade(in_order, Outcome("", ())).reason == (
        "expected [search, fetch] in this order (called: [])"
    )
    any_order = Grader(K.TRAJECTORY, tools=tools, match=TrajectoryMatch.ANY_ORDER)
    assert grade(any_order, Outcome("", ("fetch",))).reason == (
        "expected [search, fetch] in any order (called: [fetch])"
    )


def test_ceiling_limits_tokens_cost_and_time() -> None:
    grader = Grader(K.CEILING, max_tokens=100, max_cost_micros=50, max_seconds=2.0)
    usage = TokenUsage(prompt_tokens=60, completion_tokens=30, cost_micros=50)
    assert grade(grader, Outcome("", usage=usage, seconds=2.0)).passed
    over = grade(
        grader,
        Outcome(
            "", usage=TokenUsage(prompt_tokens=90, completion_tokens=20, cost_micros=51), seconds=3
        ),
    )
    assert not over.passed
    assert over.reason == "110 tokens > 100; cost 51 micros > 50; 3.00 s > 2 s"
    only_time = Grader(K.CEILING, max_seconds=1.0)
    assert grade(only_time, Outcome("", usage=TokenUsage(prompt_tokens=10**6), seconds=0.5)).passed


def test_the_judge_is_not_graded_here() -> None:
    with pytest.raises(ValueError, match="needs a model"):
        grade(Grader(K.JUDGE, rubric="r"), Outcome("x"))
