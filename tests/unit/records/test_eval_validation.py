"""What cases and gates must be: every problem at once, each naming the case (position
and id) and the field; and cases keep their every field through their stored JSON."""

from __future__ import annotations

import json

import pytest

from core.errors import InvalidArgumentError
from records.evals.codec import case_from_json, case_to_json, result_from_json, result_to_json
from records.evals.model import (
    CaseResult,
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
from records.evals.validation import check_cases, check_gate, task_context, with_ids
from records.tasks import TokenUsage

K = GraderKind


def _problems(cases: list[EvalCase]) -> dict[str, str]:
    with pytest.raises(InvalidArgumentError) as refused:
        check_cases(cases)
    return {v.field: v.description for v in refused.value.field_violations}


def test_cases_without_an_id_are_given_one_by_position() -> None:
    cases = with_ids([EvalCase("", "a"), EvalCase("mine", "b"), EvalCase("", "c")], first=3)
    assert [c.case_id for c in cases] == ["case-3", "mine", "case-5"]


def test_every_problem_names_its_case_and_field() -> None:
    bad = EvalCase(
        "q2",
        "",
        turns=(EvalTurn("system", "x"),),
        graders=(
            Grader(K.REGEX, expected="(open"),
            Grader(K.JSON_SCHEMA, schema={"type": "nonsense"}),
            Grader(K.JUDGE, rubric=" ", pass_score=2.0),
            Grader(K.CEILING),
            Grader(K.CONTAINS, name="regex", expected="x"),
            Grader(K.TRAJECTORY, tools=("",)),
        ),
    )
    problems = _problems([EvalCase("q1", "fine"), bad, EvalCase("q1", "twice")])
    assert set(problems) == {
        "cases[1].input",
        "cases[1].turns[0].role",
        "cases[1].graders[0].regex",
        "cases[1].graders[1].json_schema",
        "cases[1].graders[2].judge.rubric",
        "cases[1].graders[2].judge.pass_score",
        "cases[1].graders[3].ceiling",
        "cases[1].graders[4].name",
        "cases[1].graders[5].trajectory.tools",
        "cases[2].case_id",
    }
    assert problems["cases[1].graders[0].regex"].startswith("case 'q2': is not an RE2 expression")
    assert problems["cases[2].case_id"] == "case 'q1': is not unique in the dataset"


def test_a_replayed_case_needs_no_input() -> None:
    check_cases([EvalCase("r", from_task_id="task-1", graders=(Grader(K.EXACT, expected="x"),))])


def test_a_gate_holds_shares_from_0_to_1() -> None:
    check_gate(Gate(0.9, (GraderThreshold("judge", 0.5),), 0.1, 2))
    with pytest.raises(InvalidArgumentError) as refused:
        check_gate(Gate(1.5, (GraderThreshold("", float("nan")),), -0.1))
    assert [v.field for v in refused.value.field_violations] == [
        "gate.min_pass_rate",
        "gate.max_regression",
        "gate.thresholds[0].grader",
        "gate.thresholds[0].min_pass_rate",
    ]


def test_cases_and_results_keep_every_field_through_json() -> None:
    case = EvalCase(
        "q1",
        "hi",
        {"a": [1, {"b": None}]},
        (EvalTurn("user", "earlier"),),
        (
            Grader(K.EXACT, "e", expected="x"),
            Grader(K.JSON_SCHEMA, schema={"type": "object"}),
            Grader(K.TRAJECTORY, tools=("a", "b"), match=TrajectoryMatch.ANY_ORDER),
            Grader(K.JUDGE, rubric="r", model="m", pass_score=0.8),
            Grader(K.CEILING, max_tokens=1, max_cost_micros=2, max_seconds=3.5),
        ),
        "task-9",
    )
    assert case_from_json(json.loads(json.dumps(case_to_json(case)))) == case
    result = CaseResult(
        "q1",
        "task-1",
        True,
        (GraderResult("e", "exact", True, 1.0, ""),),
        "answer",
        TokenUsage(prompt_tokens=3, cost_micros=4),
        1.5,
        "",
        ReplayReport("task-0", "read_only", True, "answer", 0, "x", "y", 1, 2, 3),
    )
    assert result_from_json(json.loads(json.dumps(result_to_json(result)))) == result


def test_a_case_past_a_tasks_own_limits_is_refused_when_it_is_stored() -> None:
    """A case that could never start as a task (its input past a task's characters, its
    context with its earlier turns past a task's bytes) is refused up front."""
    grader = (Grader(GraderKind.CONTAINS, expected="x"),)
    turns = tuple(EvalTurn("user", "y" * 600) for _ in range(20))
    cases = (
        EvalCase("long", "x" * 5_001, graders=grader),
        EvalCase("chatty", "hi", turns=turns, graders=grader),
        EvalCase("fine", "hi", graders=grader),
    )
    with pytest.raises(InvalidArgumentError) as refused:
        check_cases(cases, max_input=5_000, max_context=10 * 1024)
    assert [v.field for v in refused.value.field_violations] == [
        "cases[0].input",
        "cases[1].context",
    ]
    assert "with its turns is" in refused.value.field_violations[1].description
    check_cases(cases[2:], max_input=5_000, max_context=10 * 1024)
    assert task_context(cases[1])["earlier_turns"][0] == {"role": "user", "content": "y" * 600}
