"""Approval rules and deadline actions between protobuf and `records`
(`records.tools.approval_rules`, `records.waits.WaitAction`)."""

from __future__ import annotations

from datetime import timedelta

from google.protobuf import duration_pb2

from agentd.v1 import inbox_pb2
from core.errors import FieldViolation, InvalidArgumentError
from records.tools.approval_rules import ApprovalRule, ApprovalRuleError
from records.waits import WaitAction

DEADLINE_ACTIONS: dict[WaitAction, inbox_pb2.DeadlineAction.ValueType] = {
    WaitAction.DENY: inbox_pb2.DEADLINE_ACTION_DENY,
    WaitAction.FAIL: inbox_pb2.DEADLINE_ACTION_FAIL,
    WaitAction.CANCEL: inbox_pb2.DEADLINE_ACTION_CANCEL,
    WaitAction.APPROVE: inbox_pb2.DEADLINE_ACTION_APPROVE,
    WaitAction.ESCALATE: inbox_pb2.DEADLINE_ACTION_ESCALATE,
}
_BY_WIRE: dict[int, WaitAction] = {int(wire): action for action, wire in DEADLINE_ACTIONS.items()}
_FIELDS = {  # the record's field -> the message's
    "approver_roles": "approver_roles",
    "deadline_seconds": "deadline",
    "on_deadline": "on_deadline",
    "escalate_to_roles": "escalate_to_roles",
    "escalation_deadline_seconds": "escalation_deadline",
    "on_escalation_deadline": "on_escalation_deadline",
    "remind_before_seconds": "remind_before",
}


def rule_from_proto(message: inbox_pb2.ApprovalRule, at: str) -> ApprovalRule:
    """The rule `message` states (`at`: where it sits in the request, for the field
    violations INVALID_ARGUMENT names, one per problem)."""
    violations: list[FieldViolation] = []

    def action(name: str, value: int) -> WaitAction:
        if value == inbox_pb2.DEADLINE_ACTION_UNSPECIFIED:
            return WaitAction.DENY
        found = _BY_WIRE.get(value)
        if found is None:
            violations.append(FieldViolation(f"{at}.{name}", f"{value} is not a deadline action"))
            return WaitAction.DENY
        return found

    def seconds(name: str) -> float | None:
        if not message.HasField(name):  # type: ignore[arg-type]
            return None
        duration: duration_pb2.Duration = getattr(message, name)
        return duration.ToTimedelta().total_seconds()

    fields = {
        "approver_roles": tuple(message.approver_roles),
        "deadline_seconds": seconds("deadline"),
        "on_deadline": action("on_deadline", message.on_deadline),
        "escalate_to_roles": tuple(message.escalate_to_roles),
        "escalation_deadline_seconds": seconds("escalation_deadline"),
        "on_escalation_deadline": action("on_escalation_deadline", message.on_escalation_deadline),
        "remind_before_seconds": seconds("remind_before"),
    }
    rule = None
    if not violations:
        try:
            rule = ApprovalRule(**fields)  # type: ignore[arg-type]
        except ApprovalRuleError as bad:
            violations.extend(
                FieldViolation(f"{at}.{_FIELDS.get(name, name)}", what)
                for name, what in bad.problems
            )
    if rule is None:
        raise InvalidArgumentError(violations)
    return rule


def rule_to_proto(rule: ApprovalRule) -> inbox_pb2.ApprovalRule:
    message = inbox_pb2.ApprovalRule(
        approver_roles=list(rule.approver_roles),
        on_deadline=DEADLINE_ACTIONS[rule.on_deadline],
        escalate_to_roles=list(rule.escalate_to_roles),
    )
    if rule.escalates:
        message.on_escalation_deadline = DEADLINE_ACTIONS[rule.on_escalation_deadline]
    for name, seconds in (
        ("deadline", rule.deadline_seconds),
        ("escalation_deadline", rule.escalation_deadline_seconds),
        ("remind_before", rule.remind_before_seconds),
    ):
        if seconds is not None:
            getattr(message, name).FromTimedelta(timedelta(seconds=seconds))
    return message
