"""Conversion between protobuf messages and the domain types of agent/ and tools/.

The only first-party module (with the servicer) that imports generated code.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from google.protobuf import duration_pb2, json_format, struct_pb2, timestamp_pb2

from agent.tasks import ExecutionMode, StopReason, Task, TaskStatus
from agentd.v1 import agent_service_pb2, tasks_pb2, tools_pb2
from tools.model import JSONValue, ToolSpec
from tools.outcomes import ToolCallResult, ToolErrorKind

MAX_SAFE_INTEGER = 2**53


def _normalise(value: Any) -> Any:
    """JSON numbers arrive as doubles; give whole ones back as ints."""
    if isinstance(value, float) and value.is_integer() and abs(value) <= MAX_SAFE_INTEGER:
        return int(value)
    if isinstance(value, dict):
        return {k: _normalise(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_normalise(v) for v in value]
    return value


def struct_to_dict(struct: struct_pb2.Struct) -> dict[str, JSONValue]:
    result: dict[str, JSONValue] = _normalise(json_format.MessageToDict(struct))
    return result


def dict_to_struct(data: dict[str, JSONValue]) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    json_format.ParseDict(data, struct)
    return struct


def to_value(data: JSONValue) -> struct_pb2.Value:
    value = struct_pb2.Value()
    json_format.ParseDict(data, value)
    return value


def to_duration(seconds: float) -> duration_pb2.Duration:
    duration = duration_pb2.Duration()
    duration.FromTimedelta(timedelta(seconds=seconds))
    return duration


def tool_to_proto(spec: ToolSpec) -> tools_pb2.Tool:
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
    )


_TOOL_ERROR_KINDS = {
    ToolErrorKind.FAILED: tools_pb2.TOOL_ERROR_KIND_FAILED,
    ToolErrorKind.TIMEOUT: tools_pb2.TOOL_ERROR_KIND_TIMEOUT,
    ToolErrorKind.CRASHED: tools_pb2.TOOL_ERROR_KIND_CRASHED,
}


def tool_result_to_proto(result: ToolCallResult) -> agent_service_pb2.CallToolResponse:
    response = agent_service_pb2.CallToolResponse(
        call_id=result.call_id,
        text=result.text,
        duration=to_duration(result.duration_seconds),
    )
    if result.error is None:
        response.result.CopyFrom(to_value(result.data))
    else:
        response.error.CopyFrom(
            tools_pb2.ToolCallError(
                kind=_TOOL_ERROR_KINDS[result.error.kind], message=result.error.message
            )
        )
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


def mode_from_proto(mode: tasks_pb2.ExecutionMode.ValueType) -> ExecutionMode:
    for domain, wire in _MODES.items():
        if wire == mode:
            return domain
    return ExecutionMode.AUTO


def task_to_proto(task: Task) -> tasks_pb2.Task:
    created = timestamp_pb2.Timestamp()
    created.FromDatetime(task.created_at)
    updated = timestamp_pb2.Timestamp()
    updated.FromDatetime(task.updated_at)
    message = tasks_pb2.Task(
        task_id=task.task_id,
        status=_STATUSES[task.status],
        task=task.task,
        mode=_MODES[task.mode],
        progress=tasks_pb2.Progress(current_step=task.current_step, total_steps=task.total_steps),
        final_answer=task.final_answer,
        usage=tasks_pb2.TokenUsage(
            prompt_tokens=task.usage.prompt_tokens,
            completion_tokens=task.usage.completion_tokens,
            reasoning_tokens=task.usage.reasoning_tokens,
            total_tokens=task.usage.total_tokens,
        ),
        create_time=created,
        update_time=updated,
        stop_detail=task.stop_detail,
        last_sequence=task.last_sequence,
        context=dict_to_struct(task.context),
    )
    if task.stop_reason is not None:
        message.stop_reason = _STOP_REASONS[task.stop_reason]
    if task.failure is not None:
        message.error.CopyFrom(
            tasks_pb2.TaskError(reason=task.failure.reason, message=task.failure.message)
        )
    return message
