"""Building request messages from Python values, and reading Structs back."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from typing import Any, Literal

from google.protobuf import json_format, struct_pb2

from agentd.v1 import agent_service_pb2 as pb
from agentd.v1 import audit_pb2, events_pb2, grants_pb2, inbox_pb2, tasks_pb2, tools_pb2
from agentd.v1 import conversations_pb2 as cpb
from agentd_client.files.artifacts import Part

BUSY_POLICIES = {
    "reject": cpb.CONVERSATION_BUSY_POLICY_REJECT,
    "enqueue": cpb.CONVERSATION_BUSY_POLICY_ENQUEUE,
    "interrupt": cpb.CONVERSATION_BUSY_POLICY_INTERRUPT,
    "steer": cpb.CONVERSATION_BUSY_POLICY_STEER,
    "follow_up": cpb.CONVERSATION_BUSY_POLICY_FOLLOW_UP,
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
    wait_timeout: float | None = None,
    parts: Sequence[Part] = (),
    spend_limit: int = 0,
) -> pb.ExecuteRequest:
    """An ExecuteRequest (`parts`: files and images given with the input; `spend_limit`:
    micro-units of the server's currency the task may spend on model calls, 0 for no
    limit of its own)."""
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
        parts=[part.to_proto() for part in parts],
        spend_limit=spend_limit,
    )
    if task_timeout is not None:
        request.timeout.FromTimedelta(timedelta(seconds=task_timeout))
    if wait_timeout is not None:
        request.wait_timeout.FromTimedelta(timedelta(seconds=wait_timeout))
    if plan is not None:
        request.plan.CopyFrom(plan)
    return request


DECISIONS = {
    "approve": events_pb2.APPROVAL_DECISION_APPROVE,
    "reject": events_pb2.APPROVAL_DECISION_REJECT,
    "edit": events_pb2.APPROVAL_DECISION_EDIT,
}


Decision = Literal["approve", "reject", "edit"]
AuditKind = Literal["rpc", "tool_call", "guardrail"]
AUDIT_KINDS: Mapping[AuditKind, audit_pb2.AuditKind.ValueType] = {
    "rpc": audit_pb2.AUDIT_KIND_RPC,
    "tool_call": audit_pb2.AUDIT_KIND_TOOL_CALL,
    "guardrail": audit_pb2.AUDIT_KIND_GUARDRAIL,
}


def list_tasks_request(
    statuses: Sequence[tasks_pb2.TaskStatus.ValueType],
    page_size: int,
    page_token: str,
    labels: Mapping[str, str] | None,
    agent: str,
    conversation_id: str,
    created_after: datetime | None,
    created_before: datetime | None,
    parent_task_id: str = "",
) -> pb.ListTasksRequest:
    request = pb.ListTasksRequest(
        statuses=list(statuses),
        page_size=page_size,
        page_token=page_token,
        labels=dict(labels or {}),
        agent=agent,
        conversation_id=conversation_id,
        parent_task_id=parent_task_id,
    )
    if created_after is not None:
        request.created_after.FromDatetime(created_after)
    if created_before is not None:
        request.created_before.FromDatetime(created_before)
    return request


def approve_request(
    task_id: str,
    call_id: str,
    decision: Decision,
    arguments: Mapping[str, Any] | None,
    comment: str,
) -> pb.ApproveToolCallRequest:
    return pb.ApproveToolCallRequest(
        task_id=task_id,
        call_id=call_id,
        decision=DECISIONS[decision],
        arguments=to_struct(arguments) if arguments is not None else None,
        comment=comment,
    )


def audit_request(
    kind: AuditKind,
    principal_id: str,
    tool_name: str,
    outcome: str,
    task_id: str,
    since: datetime | None,
    until: datetime | None,
    page_size: int,
    page_token: str,
    check: str = "",
) -> pb.ListAuditRecordsRequest:
    request = pb.ListAuditRecordsRequest(
        kind=AUDIT_KINDS[kind],
        principal_id=principal_id,
        tool_name=tool_name,
        outcome=outcome,
        task_id=task_id,
        page_size=page_size,
        page_token=page_token,
        check=check,
    )
    if since is not None:
        request.since.FromDatetime(since)
    if until is not None:
        request.until.FromDatetime(until)
    return request


def grant_request(
    subject: str,
    tool: str,
    level: tools_pb2.PermissionLevel.ValueType,
    expires_at: datetime | None,
    window: str,
    arguments: Mapping[str, Sequence[str]] | None,
    requires_approval: bool,
    approval: inbox_pb2.ApprovalRule | None = None,
) -> pb.CreateGrantRequest:
    grant = grants_pb2.Grant(
        subject=subject,
        tool=tool,
        level=level,
        window=window,
        arguments={
            name: grants_pb2.ArgumentPrefixes(prefixes=list(prefixes))
            for name, prefixes in (arguments or {}).items()
        },
        requires_approval=requires_approval,
        approval=approval,
    )
    if expires_at is not None:
        grant.expires_at.FromDatetime(expires_at)
    return pb.CreateGrantRequest(grant=grant)
