"""Conversion of grants, their approval rules and deadline actions between protobuf and
`records` (`records.tools.grants`, `records.tools.approval_rules`, `records.waits.WaitAction`)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from google.protobuf import duration_pb2

from agentd.v1 import grants_pb2, inbox_pb2, tools_pb2
from core.errors import FieldViolation, InvalidArgumentError
from records.tools.approval_rules import ApprovalRule, ApprovalRuleError
from records.tools.grants import Grant, TimeWindow
from records.tools.model import PermissionLevel
from records.waits import WaitAction
from server.convert.tasks import timestamp_from_proto, to_timestamp

MAX_ARGUMENTS = 16
MAX_PREFIXES = 16
MAX_PREFIX_CHARS = 2_048
_PLACEHOLDER_TIME = datetime(1970, 1, 1, tzinfo=UTC)


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


def grant_from_proto(message: grants_pb2.Grant) -> Grant:
    """A draft grant (the server sets id, tenant, author and times); every problem is
    reported as a field violation."""
    violations: list[FieldViolation] = []
    level = None
    if message.level in (tools_pb2.PERMISSION_LEVEL_UNSPECIFIED,):
        violations.append(FieldViolation("grant.level", "is required"))
    else:
        try:
            level = PermissionLevel(message.level)
        except ValueError:
            violations.append(FieldViolation("grant.level", "is not a permission level"))
    window = None
    if message.window:
        try:
            window = TimeWindow.parse(message.window)
        except ValueError as error:
            violations.append(FieldViolation("grant.window", str(error)))
    arguments: dict[str, tuple[str, ...]] = {}
    if len(message.arguments) > MAX_ARGUMENTS:
        violations.append(FieldViolation("grant.arguments", f"more than {MAX_ARGUMENTS}"))
    for name, prefixes in message.arguments.items():
        listed = tuple(prefixes.prefixes)
        if not name or len(name) > 64:
            violations.append(FieldViolation("grant.arguments", f"bad argument name {name!r}"))
        if not listed or len(listed) > MAX_PREFIXES:
            violations.append(
                FieldViolation(f"grant.arguments[{name}]", f"needs 1 to {MAX_PREFIXES} prefixes")
            )
        if any(not p or len(p) > MAX_PREFIX_CHARS for p in listed):
            violations.append(
                FieldViolation(f"grant.arguments[{name}]", "has an empty or too long prefix")
            )
        arguments[name] = listed
    approval = _approval(message, violations)
    draft: Grant | None = None
    try:
        draft = Grant(
            grant_id="new",
            tenant="",
            subject=message.subject,
            tool=message.tool,
            level=level or PermissionLevel.NONE,
            created_at=_PLACEHOLDER_TIME,
            expires_at=timestamp_from_proto(message.expires_at, "grant.expires_at")
            if message.HasField("expires_at")
            else None,
            window=window,
            arguments=arguments,
            requires_approval=message.requires_approval,
            approval=approval,
        )
    except ValueError as error:
        field = "grant.subject" if "subject" in str(error) else "grant.tool"
        violations.append(FieldViolation(field, str(error)))
    if violations:
        raise InvalidArgumentError(violations)
    assert draft is not None
    return draft


def _approval(message: grants_pb2.Grant, violations: list[FieldViolation]) -> ApprovalRule | None:
    """The grant's approval rule, if it states one (only with `requires_approval`); its
    problems added to `violations`."""
    if not message.HasField("approval"):
        return None
    if not message.requires_approval:
        violations.append(
            FieldViolation("grant.approval", "is only for a grant with requires_approval")
        )
    try:
        rule = rule_from_proto(message.approval, "grant.approval")
    except InvalidArgumentError as bad:
        violations.extend(bad.violations)
        return None
    return rule if message.requires_approval else None


def grant_to_proto(grant: Grant) -> grants_pb2.Grant:
    return grants_pb2.Grant(
        grant_id=grant.grant_id,
        subject=grant.subject,
        tool=grant.tool,
        level=tools_pb2.PermissionLevel.ValueType(int(grant.level)),
        expires_at=to_timestamp(grant.expires_at) if grant.expires_at else None,
        window=str(grant.window) if grant.window else "",
        arguments={
            name: grants_pb2.ArgumentPrefixes(prefixes=list(prefixes))
            for name, prefixes in grant.arguments.items()
        },
        requires_approval=grant.requires_approval,
        approval=rule_to_proto(grant.approval) if grant.approval is not None else None,
        created_by=grant.created_by,
        created_at=to_timestamp(grant.created_at),
        revoked_at=to_timestamp(grant.revoked_at) if grant.revoked_at else None,
    )
