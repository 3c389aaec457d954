"""Datasets, cases and graders: the protos of evals.proto and `records.evals.model`."""

from __future__ import annotations

from typing import Any

from agentd.v1 import evals_pb2 as pb
from core.errors import FieldViolation, InvalidArgumentError
from records.evals.model import (
    Dataset,
    EvalCase,
    EvalTurn,
    Grader,
    GraderKind,
    TrajectoryMatch,
)
from server.convert.tasks import to_duration, to_timestamp
from server.convert.values import dict_to_struct, struct_to_dict

_MATCHES = {
    pb.TRAJECTORY_MATCH_UNSPECIFIED: TrajectoryMatch.IN_ORDER,
    pb.TRAJECTORY_MATCH_IN_ORDER: TrajectoryMatch.IN_ORDER,
    pb.TRAJECTORY_MATCH_ANY_ORDER: TrajectoryMatch.ANY_ORDER,
    pb.TRAJECTORY_MATCH_SUBSET: TrajectoryMatch.SUBSET,
}
_MATCH_PROTOS = {
    TrajectoryMatch.IN_ORDER: pb.TRAJECTORY_MATCH_IN_ORDER,
    TrajectoryMatch.ANY_ORDER: pb.TRAJECTORY_MATCH_ANY_ORDER,
    TrajectoryMatch.SUBSET: pb.TRAJECTORY_MATCH_SUBSET,
}


def grader_from_proto(grader: pb.Grader, field: str) -> Grader:
    """A grader; INVALID_ARGUMENT naming `field` when it has no kind or an unknown match."""
    kind = grader.WhichOneof("kind")
    name = grader.name
    if kind is None:
        raise InvalidArgumentError([FieldViolation(field, "sets no grader kind")])
    if kind in ("exact", "contains", "regex"):
        return Grader(GraderKind(kind), name, expected=getattr(grader, kind))
    if kind == "json_schema":
        schema = struct_to_dict(grader.json_schema, f"{field}.json_schema")
        return Grader(GraderKind.JSON_SCHEMA, name, schema=schema)
    if kind == "trajectory":
        match = _MATCHES.get(grader.trajectory.match)
        if match is None:
            problem = f"{grader.trajectory.match} is not a trajectory match"
            raise InvalidArgumentError([FieldViolation(f"{field}.trajectory.match", problem)])
        return Grader(
            GraderKind.TRAJECTORY, name, tools=tuple(grader.trajectory.tools), match=match
        )
    if kind == "judge":
        judged = grader.judge
        return Grader(
            GraderKind.JUDGE,
            name,
            rubric=judged.rubric,
            model=judged.model,
            pass_score=judged.pass_score or 0.5,
        )
    ceiling = grader.ceiling
    return Grader(
        GraderKind.CEILING,
        name,
        max_tokens=ceiling.max_tokens,
        max_cost_micros=ceiling.max_cost_micros,
        max_seconds=ceiling.max_duration.ToTimedelta().total_seconds()
        if ceiling.HasField("max_duration")
        else 0.0,
    )


def grader_to_proto(grader: Grader) -> pb.Grader:
    kind = grader.kind
    answer = pb.Grader(name=grader.name)
    if kind in (GraderKind.EXACT, GraderKind.CONTAINS, GraderKind.REGEX):
        setattr(answer, kind.value, grader.expected)
    elif kind is GraderKind.JSON_SCHEMA:
        answer.json_schema.CopyFrom(dict_to_struct(dict(grader.schema or {})))
    elif kind is GraderKind.TRAJECTORY:
        answer.trajectory.CopyFrom(
            pb.TrajectoryGrader(tools=list(grader.tools), match=_MATCH_PROTOS[grader.match])
        )
    elif kind is GraderKind.JUDGE:
        answer.judge.CopyFrom(
            pb.JudgeGrader(rubric=grader.rubric, model=grader.model, pass_score=grader.pass_score)
        )
    else:
        ceiling = pb.CeilingGrader(
            max_tokens=grader.max_tokens, max_cost_micros=grader.max_cost_micros
        )
        if grader.max_seconds:
            ceiling.max_duration.CopyFrom(to_duration(grader.max_seconds))
        answer.ceiling.CopyFrom(ceiling)
    return answer


def graders_from_proto(graders: Any, field: str) -> tuple[Grader, ...]:
    return tuple(grader_from_proto(g, f"{field}[{i}]") for i, g in enumerate(graders))


def case_from_proto(case: pb.EvalCase, field: str) -> EvalCase:
    return EvalCase(
        case_id=case.case_id,
        input=case.input,
        context=struct_to_dict(case.context, f"{field}.context"),
        turns=tuple(EvalTurn(t.role, t.content) for t in case.turns),
        graders=graders_from_proto(case.graders, f"{field}.graders"),
        from_task_id=case.from_task_id,
    )


def cases_from_proto(cases: Any, field: str) -> tuple[EvalCase, ...]:
    return tuple(case_from_proto(c, f"{field}[{i}]") for i, c in enumerate(cases))


def case_to_proto(case: EvalCase) -> pb.EvalCase:
    return pb.EvalCase(
        case_id=case.case_id,
        input=case.input,
        context=dict_to_struct(dict(case.context)),
        turns=[pb.EvalTurn(role=t.role, content=t.content) for t in case.turns],
        graders=[grader_to_proto(g) for g in case.graders],
        from_task_id=case.from_task_id,
    )


def dataset_from_proto(dataset: pb.Dataset) -> Dataset:
    """What CreateDataset asks to keep (id, tenant and times are the server's)."""
    return Dataset(
        dataset_id="",
        tenant="",
        name=dataset.name,
        description=dataset.description,
        cases=cases_from_proto(dataset.cases, "dataset.cases"),
    )


def dataset_to_proto(dataset: Dataset) -> pb.Dataset:
    answer = pb.Dataset(
        dataset_id=dataset.dataset_id,
        name=dataset.name,
        description=dataset.description,
        cases=[case_to_proto(c) for c in dataset.cases],
        created_by=dataset.created_by,
    )
    if dataset.created_at is not None:
        answer.create_time.CopyFrom(to_timestamp(dataset.created_at))
    return answer
