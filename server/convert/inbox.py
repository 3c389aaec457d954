"""The inbox on the wire: a ListPendingActions request as the query it asks for, and a wait
for a person as a PendingAction."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agentd.v1 import inbox_pb2
from core.errors import FieldViolation, InvalidArgumentError
from records.agents.definition import split_reference
from records.waits import PERSON_KINDS, PendingQuery, Wait, WaitKind
from server.convert import pages
from server.convert.approval_rules import DEADLINE_ACTIONS
from server.convert.tasks import to_timestamp
from server.convert.values import dict_to_struct

_KINDS: dict[WaitKind, inbox_pb2.PendingActionKind.ValueType] = {
    WaitKind.APPROVAL: inbox_pb2.PENDING_ACTION_KIND_APPROVAL,
    WaitKind.QUESTION: inbox_pb2.PENDING_ACTION_KIND_QUESTION,
    WaitKind.RESUME: inbox_pb2.PENDING_ACTION_KIND_RESUME,
    WaitKind.BUDGET: inbox_pb2.PENDING_ACTION_KIND_BUDGET,
}
_BY_WIRE = {wire: kind for kind, wire in _KINDS.items()}
MAX_TASK_ID_LENGTH = 64


def kinds_from_proto(values: Iterable[int]) -> frozenset[WaitKind]:
    """The kinds asked for (every kind for none); INVALID_ARGUMENT naming each one that is
    not a kind of pending action."""
    violations = [
        FieldViolation(f"kinds[{index}]", f"{value} is not a kind of pending action")
        for index, value in enumerate(values)
        if value not in _BY_WIRE
    ]
    if violations:
        raise InvalidArgumentError(violations)
    chosen = frozenset(_BY_WIRE[value] for value in values)  # type: ignore[index]
    return chosen or PERSON_KINDS


def pending_query(
    request: inbox_pb2.ListPendingActionsRequest, tenant: str, limit: int
) -> PendingQuery:
    """The page `request` asks for (its audience is the inbox's to add); INVALID_ARGUMENT
    naming each malformed field."""
    violations: list[FieldViolation] = []
    agent, version = "", None
    if request.agent:
        try:
            agent, version = split_reference(request.agent)
        except ValueError as bad:
            violations.append(FieldViolation("agent", str(bad)))
    root = request.root_task_id
    if root and (len(root) > MAX_TASK_ID_LENGTH or not root.isprintable()):
        violations.append(FieldViolation("root_task_id", "is not a task id"))
    if violations:
        raise InvalidArgumentError(violations)
    return PendingQuery(
        tenant=tenant,
        agent=agent,
        agent_version=version,
        root_task_id=root,
        limit=limit,
        after=pages.time_key_cursor(request.page_token),
    )


def pending_action_to_proto(wait: Wait) -> inbox_pb2.PendingAction:
    """A wait for a person as the action it asks for: an approval's arguments as a Struct
    (when its redacted JSON was kept whole), anything else it asks as text."""
    action = inbox_pb2.PendingAction(
        kind=_KINDS[wait.kind],
        task_id=wait.task_id,
        root_task_id=wait.root_task_id or wait.task_id,
        request_id=wait.slot,
        tool_name=wait.tool_name,
        agent=wait.agent,
        asked_by=wait.owner,
        roles=list(wait.roles),
        created_at=to_timestamp(wait.created_at),
        on_deadline=DEADLINE_ACTIONS[wait.on_deadline],
        escalation_level=wait.escalation_level,
    )
    arguments = _object(wait.detail) if wait.kind is WaitKind.APPROVAL else None
    if arguments is not None:
        action.arguments.CopyFrom(dict_to_struct(arguments))
    else:
        action.text = wait.detail
    if wait.deadline_at is not None:
        action.deadline.CopyFrom(to_timestamp(wait.deadline_at))
    if wait.remind_at is not None:
        action.remind_at.CopyFrom(to_timestamp(wait.remind_at))
    return action


def _object(detail: str) -> dict[str, Any] | None:
    """The JSON object `detail` holds, or None (it was cut to fit, or is no object)."""
    try:
        found = json.loads(detail)
    except ValueError:
        return None
    return found if isinstance(found, dict) else None
