"""Evaluation runs, their results and RunEval's request: the protos of evals.proto and
`records.evals.model`."""

from __future__ import annotations

from agentd.v1 import evals_pb2 as pb
from agentd.v1 import replays_pb2
from records.evals.model import (
    Aggregate,
    CaseResult,
    Comparison,
    EvalRequest,
    EvalRun,
    EvalRunState,
    Gate,
    GraderThreshold,
    ReplayReport,
    TaskSource,
)
from server.convert.evals.cases import cases_from_proto, graders_from_proto
from server.convert.tasks import to_timestamp, usage_to_proto

_STATES = {
    EvalRunState.RUNNING: pb.EVAL_RUN_STATE_RUNNING,
    EvalRunState.FINISHED: pb.EVAL_RUN_STATE_FINISHED,
    EvalRunState.FAILED: pb.EVAL_RUN_STATE_FAILED,
}
_TOOLS = {
    replays_pb2.REPLAY_TOOLS_UNSPECIFIED: "recorded",
    replays_pb2.REPLAY_TOOLS_RECORDED: "recorded",
    replays_pb2.REPLAY_TOOLS_READ_ONLY: "read_only",
}
_TOOL_PROTOS = {
    "recorded": replays_pb2.REPLAY_TOOLS_RECORDED,
    "read_only": replays_pb2.REPLAY_TOOLS_READ_ONLY,
}


def gate_from_proto(gate: pb.EvalGate) -> Gate:
    return Gate(
        min_pass_rate=gate.min_pass_rate or 1.0,
        thresholds=tuple(GraderThreshold(t.grader, t.min_pass_rate) for t in gate.thresholds),
        max_regression=gate.max_regression,
        allowed_regressed_cases=gate.allowed_regressed_cases,
    )


def gate_to_proto(gate: Gate) -> pb.EvalGate:
    return pb.EvalGate(
        min_pass_rate=gate.min_pass_rate,
        thresholds=[
            pb.GraderThreshold(grader=t.grader, min_pass_rate=t.min_pass_rate)
            for t in gate.thresholds
        ],
        max_regression=gate.max_regression,
        allowed_regressed_cases=gate.allowed_regressed_cases,
    )


def source_from_proto(source: pb.EvalTaskSource) -> TaskSource:
    return TaskSource(
        agent=source.agent,
        labels=dict(source.labels),
        limit=source.limit,
        tools=_TOOLS.get(source.tools, f"unknown ({source.tools})"),
        graders=graders_from_proto(source.graders, "from_tasks.graders"),
    )


def request_from_proto(request: pb.RunEvalRequest) -> EvalRequest:
    return EvalRequest(
        agent=request.agent,
        dataset_id=request.dataset_id,
        cases=cases_from_proto(request.cases, "cases"),
        source=source_from_proto(request.from_tasks) if request.HasField("from_tasks") else None,
        baseline_run_id=request.baseline_run_id,
        parallelism=request.parallelism,
        gate=gate_from_proto(request.gate),
        labels=dict(request.labels),
        idempotency_key=request.idempotency_key,
    )


def _replay_to_proto(report: ReplayReport) -> replays_pb2.ReplayInfo:
    return replays_pb2.ReplayInfo(
        source_task_id=report.source_task_id,
        tools=_TOOL_PROTOS.get(report.tools, replays_pb2.REPLAY_TOOLS_UNSPECIFIED),
        diverged=report.diverged,
        divergence=replays_pb2.ReplayDivergence(
            kind=report.divergence_kind,
            index=report.divergence_index,
            recorded=report.recorded,
            replayed=report.replayed,
        )
        if report.diverged
        else None,
        recorded_calls=report.recorded_calls,
        not_run_calls=report.not_run_calls,
        live_calls=report.live_calls,
    )


def result_to_proto(result: CaseResult) -> pb.EvalCaseResult:
    return pb.EvalCaseResult(
        case_id=result.case_id,
        task_id=result.task_id,
        passed=result.passed,
        graders=[
            pb.GraderResult(
                name=g.name, kind=g.kind, passed=g.passed, score=g.score, reason=g.reason
            )
            for g in result.graders
        ],
        answer=result.answer,
        usage=usage_to_proto(result.usage),
        seconds=result.seconds,
        error=result.error,
        replay=_replay_to_proto(result.replay) if result.replay is not None else None,
    )


def _aggregate_to_proto(totals: Aggregate) -> pb.EvalAggregate:
    return pb.EvalAggregate(
        cases=totals.cases,
        passed=totals.passed,
        pass_rate=totals.pass_rate,
        pass_rate_by_grader=dict(totals.by_grader),
        total_tokens=totals.total_tokens,
        cost_micros=totals.cost_micros,
        p50_seconds=totals.p50_seconds,
    )


def _comparison_to_proto(comparison: Comparison) -> pb.EvalComparison:
    return pb.EvalComparison(
        baseline_run_id=comparison.baseline_run_id,
        baseline_pass_rate=comparison.baseline_pass_rate,
        pass_rate_delta=comparison.pass_rate_delta,
        regressed_cases=list(comparison.regressed),
        improved_cases=list(comparison.improved),
    )


def run_to_proto(evaluation: EvalRun, *, with_results: bool = True) -> pb.EvalRun:
    answer = pb.EvalRun(
        eval_run_id=evaluation.eval_run_id,
        dataset_id=evaluation.dataset_id,
        agent=evaluation.agent,
        state=_STATES[evaluation.state],
        results=[result_to_proto(r) for r in evaluation.results] if with_results else [],
        aggregate=_aggregate_to_proto(evaluation.aggregate),
        gate=gate_to_proto(evaluation.gate),
        gate_passed=evaluation.gate_passed,
        gate_failures=list(evaluation.gate_failures),
        error=evaluation.error,
        created_by=evaluation.created_by,
        labels=dict(evaluation.labels),
        total_cases=evaluation.total_cases,
    )
    if evaluation.comparison is not None:
        answer.comparison.CopyFrom(_comparison_to_proto(evaluation.comparison))
    if evaluation.created_at is not None:
        answer.create_time.CopyFrom(to_timestamp(evaluation.created_at))
    if evaluation.finished_at is not None:
        answer.finish_time.CopyFrom(to_timestamp(evaluation.finished_at))
    return answer
