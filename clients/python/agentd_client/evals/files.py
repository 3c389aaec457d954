"""Dataset files, read into `evals_pb2.Dataset`: a YAML file (a mapping with `name`,
`description` and `cases`, or a list of cases) or a JSONL file (one case per line). The
parsed data is given here (YAML and JSON are the caller's to read); docs/evals.md shows
the format. A case:

    id: refund-1                # or case_id; empty: assigned (case-N)
    input: "Can I get a refund?"
    context: {tier: gold}       # optional
    turns:                      # optional earlier turns (user / assistant)
      - {role: user, content: "Hi"}
    from_task: task-123         # optional: replay a recorded task instead of input
    graders:
      - exact: "Yes"            # stripped answer equals
      - contains: "refund"
      - regex: "^Yes\\b"        # RE2, a search
      - json_schema: {type: object, required: [answer]}
      - trajectory: [lookup_order, refund]            # or {tools: [...], match: any_order}
      - judge: "Polite and correct."                   # or {rubric, model, pass_score}
      - ceiling: {max_tokens: 2000, max_cost_micros: 500, max_seconds: 30}
        name: cheap             # any grader may be named (default: its kind)

Only what a message needs is checked here (`DatasetFileError`, naming the case and
key); the server checks the rest, naming the case and field.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from agentd.v1 import evals_pb2
from agentd_client.requests import to_struct

CASE_KEYS = frozenset(
    {"id", "case_id", "input", "context", "turns", "from_task", "from_task_id", "graders"}
)
GRADER_KINDS = ("exact", "contains", "regex", "json_schema", "trajectory", "judge", "ceiling")
MATCHES = {
    "in_order": evals_pb2.TRAJECTORY_MATCH_IN_ORDER,
    "any_order": evals_pb2.TRAJECTORY_MATCH_ANY_ORDER,
    "subset": evals_pb2.TRAJECTORY_MATCH_SUBSET,
}


class DatasetFileError(ValueError):
    """A dataset file's content cannot be sent; the message says where and why."""


def dataset_from_data(data: Any, name: str) -> evals_pb2.Dataset:
    """A dataset from a file's parsed YAML: a mapping (name, description, cases) or a list
    of cases (named `name`)."""
    if isinstance(data, list):
        return evals_pb2.Dataset(name=name, cases=cases_from_data(data))
    if not isinstance(data, Mapping):
        raise DatasetFileError("a dataset file holds a mapping with `cases`, or a list of cases")
    unknown = set(data) - {"name", "description", "cases"}
    if unknown:
        raise DatasetFileError(f"unknown keys: {', '.join(sorted(map(str, unknown)))}")
    return evals_pb2.Dataset(
        name=str(data.get("name") or name),
        description=str(data.get("description") or ""),
        cases=cases_from_data(data.get("cases") or []),
    )


def cases_from_data(cases: Any) -> list[evals_pb2.EvalCase]:
    if not isinstance(cases, list):
        raise DatasetFileError("`cases` is a list")
    return [case_from_data(case, f"case {index + 1}") for index, case in enumerate(cases)]


def case_from_data(case: Any, where: str) -> evals_pb2.EvalCase:
    if not isinstance(case, Mapping):
        raise DatasetFileError(f"{where}: a case is a mapping")
    where = f"{where} ({case['id']})" if "id" in case else where
    unknown = set(case) - CASE_KEYS
    if unknown:
        raise DatasetFileError(f"{where}: unknown keys: {', '.join(sorted(map(str, unknown)))}")
    message = evals_pb2.EvalCase(
        case_id=str(case.get("id") or case.get("case_id") or ""),
        input=str(case.get("input") or ""),
        from_task_id=str(case.get("from_task") or case.get("from_task_id") or ""),
    )
    context = case.get("context")
    if context:
        if not isinstance(context, Mapping):
            raise DatasetFileError(f"{where}: context is a mapping")
        message.context.CopyFrom(to_struct(dict(context)))
    for turn in case.get("turns") or []:
        if not isinstance(turn, Mapping) or set(turn) - {"role", "content"}:
            raise DatasetFileError(f"{where}: a turn is {{role, content}}")
        message.turns.add(role=str(turn.get("role", "")), content=str(turn.get("content", "")))
    graders = case.get("graders") or []
    if not isinstance(graders, list):
        raise DatasetFileError(f"{where}: graders is a list")
    for index, grader in enumerate(graders):
        message.graders.append(grader_from_data(grader, f"{where}, grader {index + 1}"))
    return message


def grader_from_data(grader: Any, where: str) -> evals_pb2.Grader:
    if not isinstance(grader, Mapping):
        raise DatasetFileError(f'{where}: a grader is a mapping (e.g. exact: "4")')
    kinds = [k for k in GRADER_KINDS if k in grader]
    unknown = set(grader) - {*GRADER_KINDS, "name"}
    if len(kinds) != 1 or unknown:
        raise DatasetFileError(f"{where}: a grader has one of {', '.join(GRADER_KINDS)}")
    kind, value = kinds[0], grader[kinds[0]]
    message = evals_pb2.Grader(name=str(grader.get("name") or ""))
    if kind in ("exact", "contains", "regex"):
        setattr(message, kind, str(value))
    elif kind == "json_schema":
        if not isinstance(value, Mapping):
            raise DatasetFileError(f"{where}: json_schema is a mapping (a JSON Schema)")
        message.json_schema.CopyFrom(to_struct(dict(value)))
    elif kind == "trajectory":
        message.trajectory.CopyFrom(_trajectory(value, where))
    elif kind == "judge":
        message.judge.CopyFrom(_judge(value, where))
    else:
        message.ceiling.CopyFrom(_ceiling(value, where))
    return message


def _trajectory(value: Any, where: str) -> evals_pb2.TrajectoryGrader:
    if isinstance(value, list):
        value = {"tools": value}
    if not isinstance(value, Mapping) or set(value) - {"tools", "match"}:
        raise DatasetFileError(f"{where}: trajectory is a list of tools, or {{tools, match}}")
    match = str(value.get("match") or "in_order")
    if match not in MATCHES:
        raise DatasetFileError(f"{where}: match is one of {', '.join(MATCHES)}")
    tools = [str(t) for t in value.get("tools") or []]
    return evals_pb2.TrajectoryGrader(tools=tools, match=MATCHES[match])


def _judge(value: Any, where: str) -> evals_pb2.JudgeGrader:
    if isinstance(value, str):
        value = {"rubric": value}
    if not isinstance(value, Mapping) or set(value) - {"rubric", "model", "pass_score"}:
        raise DatasetFileError(f"{where}: judge is a rubric, or {{rubric, model, pass_score}}")
    return evals_pb2.JudgeGrader(
        rubric=str(value.get("rubric") or ""),
        model=str(value.get("model") or ""),
        pass_score=_number(value.get("pass_score", 0), where, "pass_score"),
    )


def _ceiling(value: Any, where: str) -> evals_pb2.CeilingGrader:
    keys = {"max_tokens", "max_cost_micros", "max_seconds"}
    if not isinstance(value, Mapping) or set(value) - keys:
        raise DatasetFileError(f"{where}: ceiling is a mapping of {', '.join(sorted(keys))}")
    ceiling = evals_pb2.CeilingGrader(
        max_tokens=int(_number(value.get("max_tokens", 0), where, "max_tokens")),
        max_cost_micros=int(_number(value.get("max_cost_micros", 0), where, "max_cost_micros")),
    )
    seconds = _number(value.get("max_seconds", 0), where, "max_seconds")
    if seconds:
        ceiling.max_duration.FromTimedelta(timedelta(seconds=seconds))
    return ceiling


def _number(value: Any, where: str, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
        raise DatasetFileError(f"{where}: {key} is a number, 0 or more")
    return float(value)
