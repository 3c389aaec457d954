"""Conversion between protobuf messages and the domain types of agent/ and tools/.

The shared scalars (Timestamp, Duration; Struct and Value are server/convert/values.py's,
named here too), tools, tasks, plans and
approval decisions; events are in server/convert/events.py, audit records in
server/convert/audit.py, grants in server/convert/grants.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any

from google.protobuf import duration_pb2, timestamp_pb2

from agent.requests import label_violations
from agentd.v1 import (
    agent_service_pb2,
    artifacts_pb2,
    conversations_pb2,
    events_pb2,
    tasks_pb2,
    tools_pb2,
)
from core.errors import FieldViolation, InvalidArgumentError
from core.text import clean_text
from records.conversations.model import BusyPolicy
from records.execution import ExecutionMode
from records.parts import InputPart
from records.plan import Plan
from records.requests import TaskRequest
from records.tasks import StopReason, Task, TaskStatus, TokenUsage
from records.tools.approvals import ApprovalDecision
from records.tools.model import ToolSpec
from records.tools.outcomes import ToolCallResult, ToolErrorKind
from server.convert.citations import citations_to_proto
from server.convert.recorded.replays import replay_to_proto
from server.convert.values import dict_to_struct as dict_to_struct
from server.convert.values import struct_to_dict as struct_to_dict
from server.convert.values import to_value as to_value

_EARLIEST = datetime(1, 1, 1, tzinfo=UTC)
_LATEST = datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)


def timestamp_from_proto(stamp: timestamp_pb2.Timestamp, field: str) -> datetime:
    """A Timestamp as an aware datetime; InvalidArgumentError outside 0001..9999."""
    try:
        moment = stamp.ToDatetime(UTC)
    except (ValueError, OverflowError, OSError):
        moment = None
    if moment is None or not _EARLIEST <= moment <= _LATEST or not 0 <= stamp.nanos < 10**9:
        raise InvalidArgumentError(
            [FieldViolation(field, "is not a valid time (years 0001 to 9999, UTC)")]
        )
    return moment


def to_timestamp(moment: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(moment)
    return stamp


def to_duration(seconds: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromTimedelta(timedelta(seconds=seconds))
    return duration


def tool_to_proto(spec: ToolSpec, *, unavailable: bool = False) -> tools_pb2.Tool:
    return tools_pb2.Tool(
        name=spec.name,
        description=spec.description,
        parameters_schema=dict_to_struct(dict(spec.parameters)),
        category=spec.category,
        required_permission=tools_pb2.PermissionLevel.Value(
            f"PERMISSION_LEVEL_{spec.permission.name}"
        ),
        risk=tools_pb2.RiskLevel.Value(f"RISK_LEVEL_{spec.risk.name}"),
        idempotent=spec.idempotent,
        timeout_seconds=spec.timeout_seconds,
        toolset=spec.toolset,
        source=spec.source,
        unavailable=unavailable,
        progress_keeps_alive=spec.progress_keeps_alive,
    )


APPROVAL_DECISIONS: dict[str, events_pb2.ApprovalDecision.ValueType] = {
    "approve": events_pb2.APPROVAL_DECISION_APPROVE,
    "reject": events_pb2.APPROVAL_DECISION_REJECT,
    "edit": events_pb2.APPROVAL_DECISION_EDIT,
}

_TOOL_ERROR_KINDS = {
    ToolErrorKind.FAILED: tools_pb2.TOOL_ERROR_KIND_FAILED,
    ToolErrorKind.TIMEOUT: tools_pb2.TOOL_ERROR_KIND_TIMEOUT,
    ToolErrorKind.CRASHED: tools_pb2.TOOL_ERROR_KIND_CRASHED,
    ToolErrorKind.OUTCOME_UNKNOWN: tools_pb2.TOOL_ERROR_KIND_OUTCOME_UNKNOWN,
    ToolErrorKind.REJECTED: tools_pb2.TOOL_ERROR_KIND_REJECTED,
    ToolErrorKind.RESUMABLE: tools_pb2.TOOL_ERROR_KIND_RESUMABLE,
    ToolErrorKind.UNAVAILABLE: tools_pb2.TOOL_ERROR_KIND_UNAVAILABLE,
}


def tool_error_to_proto(error: Any) -> tools_pb2.ToolCallError:
    return tools_pb2.ToolCallError(kind=_TOOL_ERROR_KINDS[error.kind], message=error.message)


def tool_result_to_proto(result: ToolCallResult) -> agent_service_pb2.CallToolResponse:
    response = agent_service_pb2.CallToolResponse(
        call_id=result.call_id,
        text=clean_text(result.text),
        duration=to_duration(result.duration_seconds),
        cached=result.cached,
    )
    if result.error is None:
        response.result.CopyFrom(to_value(result.data))
    else:
        response.error.CopyFrom(tool_error_to_proto(result.error))
    return response


_STATUSES = {
    status: tasks_pb2.TaskStatus.Value(f"TASK_STATUS_{status.name}") for status in TaskStatus
}
_MODES = {
    mode: tasks_pb2.ExecutionMode.Value(f"EXECUTION_MODE_{mode.name}") for mode in ExecutionMode
}
_STOP_REASONS = {r: tasks_pb2.StopReason.Value(f"STOP_REASON_{r.name}") for r in StopReason}


def task_status_to_proto(status: TaskStatus) -> tasks_pb2.TaskStatus.ValueType:
    return _STATUSES[status]


def stop_reason_to_proto(reason: StopReason | None) -> tasks_pb2.StopReason.ValueType:
    return _STOP_REASONS[reason] if reason is not None else tasks_pb2.STOP_REASON_UNSPECIFIED


def statuses_from_proto(values: Iterable[int]) -> frozenset[TaskStatus]:
    by_wire = {wire: status for status, wire in _STATUSES.items()}
    chosen = set()
    for index, value in enumerate(values):
        if value not in by_wire:
            raise InvalidArgumentError(
                [FieldViolation(f"statuses[{index}]", f"{value} is not a task status")]
            )
        chosen.add(by_wire[value])  # type: ignore[index]
    return frozenset(chosen)


def mode_to_proto(mode: ExecutionMode) -> tasks_pb2.ExecutionMode.ValueType:
    return _MODES[mode]


def mode_from_proto(mode: tasks_pb2.ExecutionMode.ValueType) -> ExecutionMode:
    """UNSPECIFIED is AUTO; a number the contract does not define is INVALID_ARGUMENT."""
    if mode == tasks_pb2.EXECUTION_MODE_UNSPECIFIED:
        return ExecutionMode.AUTO
    for domain, wire in _MODES.items():
        if wire == mode:
            return domain
    raise InvalidArgumentError([FieldViolation("mode", f"{mode} is not an execution mode")])


def usage_to_proto(usage: TokenUsage) -> tasks_pb2.TokenUsage:
    def count(n: int) -> int:  # never negative, whatever a stored record says
        return max(0, n)

    return tasks_pb2.TokenUsage(
        prompt_tokens=count(usage.prompt_tokens),
        completion_tokens=count(usage.completion_tokens),
        reasoning_tokens=count(usage.reasoning_tokens),
        total_tokens=count(usage.total_tokens),
        saved_tokens=count(usage.saved_tokens),
        cached_prompt_tokens=count(usage.cached_prompt_tokens),
        cost_micros=count(usage.cost_micros),
    )


def plan_to_proto(plan: Plan) -> tasks_pb2.Plan:
    return tasks_pb2.Plan(
        steps=[
            tasks_pb2.PlanStep(
                id=step.id,
                description=step.description,
                tool=step.tool,
                arguments=dict_to_struct(dict(step.arguments)),
                expected_output=step.expected_output,
                estimated_seconds=step.estimated_seconds,
                depends_on=list(step.depends_on),
                agent=step.agent,
            )
            for step in plan.steps
        ],
        estimated_total_seconds=plan.estimated_total_seconds,
        revision=plan.revision,
    )


def _positive(request: agent_service_pb2.ExecuteRequest, field: str) -> float:
    """A Duration field's seconds (0.0 when unset); INVALID_ARGUMENT when not positive."""
    if not request.HasField(field):  # type: ignore[arg-type]
        return 0.0
    seconds = float(getattr(request, field).ToTimedelta().total_seconds())
    if seconds <= 0:
        raise InvalidArgumentError([FieldViolation(field, "must be a positive duration")])
    return seconds


def task_request(request: agent_service_pb2.ExecuteRequest) -> TaskRequest:
    timeout = _positive(request, "timeout")
    return TaskRequest(
        goal=request.task,
        tools=tuple(request.tools),
        context=struct_to_dict(request.context, "context"),
        max_iterations=request.max_iterations,
        mode=mode_from_proto(request.mode),
        token_budget=request.token_budget,
        spend_limit=request.spend_limit,
        idempotency_key=request.idempotency_key,
        timeout_seconds=timeout,
        wait_timeout_seconds=_positive(request, "wait_timeout"),
        labels=dict(request.labels),
        plan=plan_data(request.plan) if request.HasField("plan") else None,
        agent=request.agent,
        bypass_tool_cache=request.bypass_tool_cache,
        conversation_id=request.conversation_id,
        busy_policy=busy_policy(request.busy_policy),
        parts=input_parts(request.parts),
    )


def input_parts(parts: Iterable[artifacts_pb2.InputPart]) -> tuple[InputPart, ...]:
    """A request's input parts as given (`agent.inputs` fetches, names and checks them)."""
    return tuple(
        InputPart(name=p.name, media_type=p.media_type, data=p.data, source_uri=p.uri)
        for p in parts
    )


def input_parts_to_proto(parts: Iterable[InputPart]) -> list[artifacts_pb2.ArtifactReference]:
    """A task's input parts as the artifacts they are (each version 1)."""
    return [
        artifacts_pb2.ArtifactReference(
            name=p.name, version=1, media_type=p.media_type, size_bytes=p.size
        )
        for p in parts
    ]


def busy_policy(value: conversations_pb2.ConversationBusyPolicy.ValueType) -> BusyPolicy:
    """A request's conversation busy policy; INVALID_ARGUMENT for an unknown number."""
    policy = _BUSY_POLICIES.get(value)
    if policy is None:
        raise InvalidArgumentError(
            [FieldViolation("busy_policy", f"{value} is not a conversation busy policy")]
        )
    return policy


_BUSY_POLICIES: dict[conversations_pb2.ConversationBusyPolicy.ValueType, BusyPolicy] = {
    conversations_pb2.CONVERSATION_BUSY_POLICY_UNSPECIFIED: BusyPolicy.REJECT,
    conversations_pb2.CONVERSATION_BUSY_POLICY_REJECT: BusyPolicy.REJECT,
    conversations_pb2.CONVERSATION_BUSY_POLICY_ENQUEUE: BusyPolicy.ENQUEUE,
    conversations_pb2.CONVERSATION_BUSY_POLICY_INTERRUPT: BusyPolicy.INTERRUPT,
    conversations_pb2.CONVERSATION_BUSY_POLICY_STEER: BusyPolicy.STEER,
    conversations_pb2.CONVERSATION_BUSY_POLICY_FOLLOW_UP: BusyPolicy.FOLLOW_UP,
}


def plan_data(plan: tasks_pb2.Plan) -> dict[str, Any]:
    """A plan from a caller, in the planner's JSON shape (`agent.requests.given_plan`
    validates it)."""
    return {
        "steps": [
            {
                "id": step.id,
                "description": step.description,
                "tool": step.tool,
                "arguments": struct_to_dict(step.arguments, f"plan.steps[{index}].arguments"),
                "depends_on": list(step.depends_on),
                "expected_output": step.expected_output,
                "estimated_seconds": step.estimated_seconds,
                # only when set: a plan without agents keeps its idempotency fingerprint
                **({"agent": step.agent} if step.agent else {}),
            }
            for index, step in enumerate(plan.steps)
        ]
    }


def label_filter(labels: Mapping[str, str]) -> dict[str, str]:
    """A ListTasks label filter; InvalidArgumentError for labels no task could carry."""
    violations = label_violations(labels)
    if violations:
        raise InvalidArgumentError(violations)
    return dict(labels)


def task_to_proto(task: Task) -> tasks_pb2.Task:
    message = tasks_pb2.Task(
        task_id=task.task_id,
        status=_STATUSES[task.status],
        task=task.goal,
        mode=_MODES[task.mode],
        progress=tasks_pb2.Progress(current_step=task.current_step, total_steps=task.total_steps),
        final_answer=task.final_answer,
        usage=usage_to_proto(task.usage),
        create_time=to_timestamp(task.created_at),
        update_time=to_timestamp(task.updated_at),
        stop_detail=task.stop_detail,
        last_sequence=task.last_sequence,
        context=dict_to_struct(task.context),
        labels=task.labels,
        trace_id=task.trace_id,
        partial=task.partial,
        agent=task.agent.reference if task.agent is not None else "",
        conversation_id=task.conversation_id,
        parent_task_id=task.parent_task_id,
        root_task_id=task.root,
        depth=task.depth,
        children=[
            tasks_pb2.SubtaskSummary(
                task_id=c.task_id,
                agent=c.agent,
                status=_STATUSES[c.status],
                usage=usage_to_proto(c.usage),
                panel=c.panel,
            )
            for c in task.children
        ],
    )
    message.citations.extend(citations_to_proto(task.citations))
    message.input_parts.extend(input_parts_to_proto(task.input_parts))
    if task.plan is not None:
        message.plan.CopyFrom(plan_to_proto(task.plan))
    if task.stop_reason is not None:
        message.stop_reason = _STOP_REASONS[task.stop_reason]
    if task.failure is not None:
        message.error.CopyFrom(
            tasks_pb2.TaskError(reason=task.failure.reason, message=task.failure.message)
        )
    if task.replay is not None:
        message.replay.CopyFrom(replay_to_proto(task.replay))
    return message


MAX_COMMENT_CHARS = 2_000


def approval_decision(
    request: agent_service_pb2.ApproveToolCallRequest, decided_by: str
) -> ApprovalDecision:
    """A human's decision from ApproveToolCall; arguments only with EDIT."""
    violations: list[FieldViolation] = []
    decision = request.decision
    if decision not in APPROVAL_DECISIONS.values():
        violations.append(FieldViolation("decision", "must be APPROVE, REJECT or EDIT"))
    edited = request.HasField("arguments")
    if decision == events_pb2.APPROVAL_DECISION_EDIT and not edited:
        violations.append(FieldViolation("arguments", "are required to EDIT a call"))
    if decision != events_pb2.APPROVAL_DECISION_EDIT and edited:
        violations.append(FieldViolation("arguments", "are allowed only with EDIT"))
    if len(request.comment) > MAX_COMMENT_CHARS:
        violations.append(
            FieldViolation("comment", f"is longer than {MAX_COMMENT_CHARS} characters")
        )
    if violations:
        raise InvalidArgumentError(violations)
    return ApprovalDecision(
        approved=decision != events_pb2.APPROVAL_DECISION_REJECT,
        decided_by=decided_by,
        comment=request.comment,
        arguments=struct_to_dict(request.arguments) if edited else None,
    )
