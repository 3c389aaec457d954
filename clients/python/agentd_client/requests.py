"""Building request messages from Python values, and reading Structs back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from google.protobuf import json_format, struct_pb2

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import conversations_pb2 as cpb
from agentd.v1 import events_pb2, tasks_pb2

BUSY_POLICIES = {
    "reject": cpb.CONVERSATION_BUSY_POLICY_REJECT,
    "enqueue": cpb.CONVERSATION_BUSY_POLICY_ENQUEUE,
    "interrupt": cpb.CONVERSATION_BUSY_POLICY_INTERRUPT,
}
"""The busy policies of `execute(..., busy_policy=...)` by name."""


def to_struct(data: Mapping[str, Any] | None) -> struct_pb2.Struct:
    struct = struct_pb2.Struct()
    if data:
        json_format.ParseDict(dict(data), struct)
    return struct


def to_python(message: struct_pb2.Value | struct_pb2.Struct) -> Any:
    """A Struct or Value as plain Python data (whole numbers as ints)."""
    data = json_format.MessageToDict(message)

    def whole(value: Any) -> Any:
        if isinstance(value, float) and value.is_integer() and abs(value) <= 2**53:
            return int(value)
        if isinstance(value, dict):
            return {k: whole(v) for k, v in value.items()}
        if isinstance(value, list):
            return [whole(v) for v in value]
        return value

    return whole(data)


def execute_request(
    task: str,
    tools: Sequence[str],
    context: Mapping[str, Any] | None,
    max_iterations: int,
    mode: tasks_pb2.ExecutionMode.ValueType,
    idempotency_key: str,
    token_budget: int,
    task_timeout: float | None,
    labels: Mapping[str, str] | None,
    plan: tasks_pb2.Plan | None = None,
    agent: str = "",
    conversation_id: str = "",
    busy_policy: str = "reject",
) -> pb.ExecuteRequest:
    request = pb.ExecuteRequest(
        task=task,
        tools=list(tools),
        context=to_struct(context),
        max_iterations=max_iterations,
        mode=mode,
        idempotency_key=idempotency_key,
        token_budget=token_budget,
        labels=dict(labels or {}),
        agent=agent,
        conversation_id=conversation_id,
        busy_policy=BUSY_POLICIES[busy_policy],
    )
    if task_timeout is not None:
        request.timeout.FromTimedelta(timedelta(seconds=task_timeout))
    if plan is not None:
        request.plan.CopyFrom(plan)
    return request


DECISIONS = {
    "approve": events_pb2.APPROVAL_DECISION_APPROVE,
    "reject": events_pb2.APPROVAL_DECISION_REJECT,
    "edit": events_pb2.APPROVAL_DECISION_EDIT,
}
