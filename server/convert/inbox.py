"""The inbox on the wire: a ListPendingActions request as the query it asks for, and a wait
for a person as a PendingAction; a ListActionHistory request as the query of the inbox's
history, and each of its entries as an ActionHistoryEntry."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from agentd.v1 import inbox_pb2
from core.errors import FieldViolation, InvalidArgumentError
from records.agents.definition import split_reference
from records.inbox.history import ActionHistoryEntry, HistoryQuery
from records.inbox.steps import ActionStepKind
from records.waits import PERSON_KINDS, PendingQuery, Wait, WaitKind
from server.convert import pages
from server.convert.grants import DEADLINE_ACTIONS
from server.convert.tasks import to_timestamp
from server.convert.values import dict_to_struct

_KINDS: dict[WaitKind, inbox_pb2.PendingActionKind.ValueType] = {
    WaitKind.APPROVAL: inbox_pb2.PENDING_ACTION_KIND_APPROVAL,
    WaitKind.QUESTION: inbox_pb2.PENDING_ACTION_KIND_QUESTION,
    WaitKind.RESUME: inbox_pb2.PENDING_ACTION_KIND_RESUME,
    WaitKind.BUDGET: inbox_pb2.PENDING_ACTION_KIND_BUDGET,
}
_BY_WIRE = {wire: kind for kind, wire in _KINDS.items()}
_STEPS: dict[ActionStepKind, inbox_pb2.ActionHistoryKind.ValueType] = {
    ActionStepKind.OPENED: inbox_pb2.ACTION_HISTORY_KIND_OPENED,
    ActionStepKind.REMINDED: inbox_pb2.ACTION_HISTORY_KIND_REMINDED,
    ActionStepKind.ESCALATED: inbox_pb2.ACTION_HISTORY_KIND_ESCALATED,
    ActionStepKind.ANSWERED: inbox_pb2.ACTION_HISTORY_KIND_ANSWERED,
    ActionStepKind.TIMED_OUT: inbox_pb2.ACTION_HISTORY_KIND_TIMED_OUT,
}
MAX_TASK_ID_LENGTH = 64
HISTORY_PAGE_SIZE = 100
"""Entries of a ListActionHistory page when it asks for 0."""
MAX_HISTORY_PAGE_SIZE = 500


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
    violations += _task_id_problems(request.root_task_id, "root_task_id")
    if violations:
        raise InvalidArgumentError(violations)
    return PendingQuery(
        tenant=tenant,
        agent=agent,
        agent_version=version,
        root_task_id=request.root_task_id,
        limit=limit,
        after=pages.time_key_cursor(request.page_token),
    )


def _task_id_problems(task_id: str, field: str) -> list[FieldViolation]:
    """A violation naming `field` when `task_id` (if any) cannot be a task id."""
    if task_id and (len(task_id) > MAX_TASK_ID_LENGTH or not task_id.isprintable()):
        return [FieldViolation(field, "is not a task id")]
    return []


def history_query(request: inbox_pb2.ListActionHistoryRequest, tenant: str) -> HistoryQuery:
    """The page of the inbox's history `request` asks for; INVALID_ARGUMENT naming each
    malformed field (a page size out of 1..500, a task id that cannot be one, a page token
    this server did not issue)."""
    violations = [
        *_task_id_problems(request.task_id, "task_id"),
        *_task_id_problems(request.root_task_id, "root_task_id"),
    ]
    try:
        limit = pages.page_size(request.page_size, HISTORY_PAGE_SIZE, MAX_HISTORY_PAGE_SIZE)
    except InvalidArgumentError as bad:
        violations += bad.violations
        limit = HISTORY_PAGE_SIZE
    try:
        after = pages.time_key_cursor(request.page_token)
    except InvalidArgumentError as bad:
        violations += bad.violations
        after = None
    if violations:
        raise InvalidArgumentError(violations)
    return HistoryQuery(
        tenant=tenant,
        task_id=request.task_id,
        root_task_id=request.root_task_id,
        limit=limit,
        after=after,
    )


def history_entry_to_proto(entry: ActionHistoryEntry) -> inbox_pb2.ActionHistoryEntry:
    """An entry of the inbox's history as the wire has it."""
    shown = inbox_pb2.ActionHistoryEntry(
        kind=_STEPS[entry.step],
        action_kind=_KINDS.get(entry.wait_kind, inbox_pb2.PENDING_ACTION_KIND_UNSPECIFIED),
        task_id=entry.task_id,
        root_task_id=entry.root_task_id or entry.task_id,
        request_id=entry.request_id,
        tool_name=entry.tool_name,
        agent=entry.agent,
        actor=entry.actor,
        outcome=entry.outcome,
        roles=list(entry.roles),
        time=to_timestamp(entry.time),
    )
    if entry.deadline_at is not None:
        shown.deadline.CopyFrom(to_timestamp(entry.deadline_at))
    return shown


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
