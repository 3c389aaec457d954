"""Approval rules: what makes one (each problem named by its field), its JSON and wire
forms, AGENTD_APPROVAL_RULE, the grant CLI's flags, and which rule a policy's decision
carries (the most specific asking grant's, the oldest of equals; else the server's)."""

from __future__ import annotations

import argparse
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from pydantic import ValidationError

from agentd.v1 import events_pb2, grants_pb2, inbox_pb2
from core.errors import InvalidArgumentError
from core.identity import Principal
from records import events as ev
from records import serialization
from records.tools.approval_rules import (
    ApprovalRule,
    ApprovalRuleError,
    rule_from_json,
    rule_to_json,
)
from records.tools.grants import Grant
from records.tools.model import PermissionLevel, RiskLevel, ToolSpec
from records.waits import Wait, WaitAction, WaitKind
from server.commands.grants import add_grants_parser, grant_from_args
from server.convert import events as convert_events
from server.convert.grants import grant_from_proto, grant_to_proto, rule_from_proto, rule_to_proto
from server.convert.inbox import pending_action_to_proto
from server.settings import Settings
from tools.permissions import GrantPolicy, LevelPolicy

NOW = datetime(2026, 12, 9, 9, 0, tzinfo=UTC)
ANA = Principal("ana", "acme", ("finance", "ops"))
FULL = ApprovalRule(
    approver_roles=("finance",),
    deadline_seconds=300.0,
    on_deadline=WaitAction.ESCALATE,
    escalate_to_roles=("ops",),
    escalation_deadline_seconds=600.0,
    on_escalation_deadline=WaitAction.DENY,
    remind_before_seconds=60.0,
)
EXAMPLE = (
    '{"approver_roles":["approver"],"deadline_seconds":300,"on_deadline":"escalate",'
    '"escalate_to_roles":["ops"],"escalation_deadline_seconds":600,'
    '"on_escalation_deadline":"deny","remind_before_seconds":60}'
)


def problems(**fields: Any) -> list[str]:
    with pytest.raises(ApprovalRuleError) as bad:
        ApprovalRule(**fields)
    return [name for name, _ in bad.value.problems]


def test_a_rule_that_cannot_be_names_each_problem() -> None:
    assert problems(approver_roles=("fin ance",)) == ["approver_roles"]
    assert problems(approver_roles=("ops", "ops")) == ["approver_roles"]
    assert problems(deadline_seconds=0.0) == ["deadline_seconds"]
    assert problems(deadline_seconds=-5.0, remind_before_seconds=float("inf")) == [
        "deadline_seconds",
        "remind_before_seconds",
    ]
    assert problems(on_deadline=WaitAction.ESCALATE) == [
        "escalate_to_roles",
        "escalation_deadline_seconds",
        "deadline_seconds",
    ]
    assert problems(escalate_to_roles=("ops",)) == ["on_deadline"]  # escalate, or not at all
    escalating = {"deadline_seconds": 60.0, "escalate_to_roles": ("ops",)}
    assert problems(
        **escalating,
        on_deadline=WaitAction.ESCALATE,
        escalation_deadline_seconds=60.0,
        on_escalation_deadline=WaitAction.ESCALATE,  # once only
    ) == ["on_escalation_deadline"]
    assert problems(deadline_seconds=60.0, remind_before_seconds=60.0) == ["remind_before_seconds"]
    assert problems(**replace_fields(FULL, remind_before_seconds=600.0)) == [
        "remind_before_seconds"  # not shorter than the escalation's deadline
    ]
    assert ApprovalRule(remind_before_seconds=60.0).deadline_seconds is None  # the wait limit


def replace_fields(rule: ApprovalRule, **changes: Any) -> dict[str, Any]:
    fields = {name: getattr(rule, name) for name in ApprovalRule.__dataclass_fields__}
    return {**fields, **changes}


def test_the_json_form_round_trips_and_names_what_it_cannot_read() -> None:
    rule = rule_from_json(EXAMPLE)
    assert rule == replace(FULL, approver_roles=("approver",))
    assert rule_from_json(rule_to_json(rule)) == rule
    assert rule_from_json("{}") == ApprovalRule()
    with pytest.raises(ApprovalRuleError, match="rule is not JSON"):
        rule_from_json("{approver_roles:")
    with pytest.raises(ApprovalRuleError) as bad:
        rule_from_json({"deadline": 5, "deadline_seconds": "5", "on_deadline": "maybe"})
    assert [name for name, _ in bad.value.problems] == [
        "deadline",
        "deadline_seconds",
        "on_deadline",
    ]


def test_a_malformed_server_rule_stops_the_settings_naming_the_problem() -> None:
    assert Settings(approval_rule=EXAMPLE).default_approval_rule == rule_from_json(EXAMPLE)
    assert Settings().default_approval_rule is None
    with pytest.raises(
        ValidationError, match=r"(?s)approval_rule.*escalate_to_roles must name a role"
    ):
        Settings(approval_rule='{"deadline_seconds": 60, "on_deadline": "escalate"}')
    with pytest.raises(ValidationError, match="deny, fail, cancel"):
        Settings(wait_deadline_actions="approval=escalate")  # a rule's action only


def spec(name: str = "send_money", category: str = "finance") -> ToolSpec:
    return ToolSpec(
        name=name,
        description="d",
        parameters={"type": "object"},
        category=category,
        permission=PermissionLevel.WRITE,
        risk=RiskLevel.HIGH,
        idempotent=False,
        timeout_seconds=1.0,
    )


def grant(grant_id: str, tool: str, subject: str, age: int, **fields: Any) -> Grant:
    return Grant(
        grant_id=grant_id,
        tenant="acme",
        subject=subject,
        tool=tool,
        level=PermissionLevel.WRITE,
        created_at=NOW - timedelta(days=age),
        **fields,
    )


def test_the_most_specific_asking_grant_s_rule_applies_the_oldest_of_equals() -> None:
    mine = ApprovalRule(approver_roles=("finance",), deadline_seconds=60.0)
    theirs = ApprovalRule(approver_roles=("ops",), deadline_seconds=60.0)
    server = ApprovalRule(approver_roles=("approver",))
    broad = grant("g_broad", "*", "principal:ana", 9, requires_approval=True, approval=theirs)
    named = grant("g_named", "send_money", "role:finance", 1, requires_approval=True, approval=mine)
    newer = grant("g_newer", "send_money", "role:ops", 0, requires_approval=True, approval=theirs)
    free = grant("g_free", "send_money", "principal:ana", 5)

    def rule(*grants: Grant, **options: Any) -> ApprovalRule | None:
        decision = GrantPolicy(grants, **options).decide(ANA, spec(), now=NOW)
        assert decision.allowed
        return decision.approval

    assert rule(broad, named, free, approval_rule=server) == mine  # the tool's name first
    assert rule(newer, named) == mine  # equally specific: the oldest
    assert rule(broad, free) == theirs
    bare = grant("g_bare", "send_money", "principal:ana", 3, requires_approval=True)
    assert rule(bare, named, approval_rule=server) == server  # the top one has none
    assert rule(free, approval_tools=["send_money"], approval_rule=server) == server
    assert rule(free, approval_rule=server) is None  # nothing asks: no rule
    level = LevelPolicy(PermissionLevel.WRITE, frozenset({"category:finance"}), server)
    assert level.decide(ANA, spec()).approval == server
    assert (
        LevelPolicy(PermissionLevel.WRITE, approval_rule=server).decide(ANA, spec()).approval
        is None
    )


def test_a_grant_s_rule_on_the_wire() -> None:
    message = grants_pb2.Grant(
        subject="role:finance",
        tool="send_money",
        level=PermissionLevel.WRITE.value,  # type: ignore[arg-type]
        requires_approval=True,
        approval=rule_to_proto(FULL),
    )
    draft = grant_from_proto(message)
    assert draft.approval == FULL
    shown = grant_to_proto(replace(draft, grant_id="g1", created_at=NOW))
    assert shown.approval == rule_to_proto(FULL)
    assert shown.approval.deadline.seconds == 300
    assert shown.approval.on_deadline == inbox_pb2.DEADLINE_ACTION_ESCALATE
    assert rule_from_proto(inbox_pb2.ApprovalRule(), "r") == ApprovalRule()
    assert not grant_to_proto(replace(draft, approval=None)).HasField("approval")


def test_a_rule_without_requires_approval_or_that_cannot_be_is_invalid() -> None:
    def refused(rule: inbox_pb2.ApprovalRule, requires: bool = True) -> list[str]:
        message = grants_pb2.Grant(
            subject="role:finance",
            tool="send_money",
            level=PermissionLevel.WRITE.value,  # type: ignore[arg-type]
            requires_approval=requires,
            approval=rule,
        )
        with pytest.raises(InvalidArgumentError) as bad:
            grant_from_proto(message)
        return [v.field for v in bad.value.violations]

    assert refused(rule_to_proto(FULL), requires=False) == ["grant.approval"]
    escalating = inbox_pb2.ApprovalRule(on_deadline=inbox_pb2.DEADLINE_ACTION_ESCALATE)
    assert refused(escalating) == [
        "grant.approval.escalate_to_roles",
        "grant.approval.escalation_deadline",
        "grant.approval.deadline",
    ]
    assert refused(inbox_pb2.ApprovalRule(on_deadline=42)) == ["grant.approval.on_deadline"]  # type: ignore[arg-type]
    negative = inbox_pb2.ApprovalRule(approver_roles=["a b"])
    negative.deadline.FromTimedelta(timedelta(seconds=-1))
    assert refused(negative) == ["grant.approval.approver_roles", "grant.approval.deadline"]


def cli(*words: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    add_grants_parser(parser.add_subparsers(dest="command"))
    base = ["grants", "grant", "--tenant", "acme", "--role", "finance", "--tool", "send_money"]
    return parser.parse_args([*base, "--level", "write", *words])


def test_the_grant_cli_takes_a_rule_as_flags() -> None:
    flags = [
        "--requires-approval",
        "--approver-role", "finance",
        "--deadline", "5m",
        "--on-deadline", "escalate",
        "--escalate-to", "ops",
        "--escalation-deadline", "10m",
        "--remind-before", "60s",
    ]  # fmt: skip
    made = grant_from_args(cli(*flags), NOW)
    assert made.approval == FULL
    assert grant_from_args(cli("--requires-approval"), NOW).approval is None
    with pytest.raises(ValueError, match="need --requires-approval"):
        grant_from_args(cli("--deadline", "5m"), NOW)
    with pytest.raises(ValueError, match="--escalate-to must name a role"):
        grant_from_args(cli("--requires-approval", "--deadline", "5m", "--on-deadline", "escalate"))
    with pytest.raises(ValueError, match="--deadline 'soon' is not like 90s"):
        grant_from_args(cli("--requires-approval", "--deadline", "soon"))


def test_a_pending_action_shows_its_reminder_and_escalation_level() -> None:
    wait = Wait(
        "acme",
        "task_1",
        "call_1",
        WaitKind.APPROVAL,
        NOW,
        roles=("ops",),
        deadline_at=NOW + timedelta(minutes=10),
        on_deadline=WaitAction.APPROVE,
        remind_at=NOW + timedelta(minutes=9),
        escalation_level=1,
    )
    action = pending_action_to_proto(wait)
    assert action.remind_at.ToDatetime(UTC) == NOW + timedelta(minutes=9)
    assert (action.escalation_level, action.on_deadline) == (1, inbox_pb2.DEADLINE_ACTION_APPROVE)
    plain = pending_action_to_proto(replace(wait, remind_at=None, escalation_level=0))
    assert not plain.HasField("remind_at")
    escalating = pending_action_to_proto(replace(wait, on_deadline=WaitAction.ESCALATE))
    assert escalating.on_deadline == inbox_pb2.DEADLINE_ACTION_ESCALATE


def test_the_events_of_a_deadline_on_the_wire_and_in_a_store() -> None:
    deadline = NOW + timedelta(minutes=10)
    passed = ev.DeadlinePassed("call_1", "approval", "send_money", "escalated", ("ops",), deadline)
    asked = ev.ApprovalRequested("call_1", "send_money", {"to": "x"}, "why", ("finance",), NOW)
    for payload in (passed, asked, ev.ApprovalRequested("c", "t", {}, "r")):
        assert serialization.loads(serialization.dumps(payload)) == payload
    old = serialization.dumps(ev.ApprovalRequested("c", "t", {}, "r"))
    assert "approver_roles" not in old  # stored as before
    assert "deadline" not in old
    wire = convert_events.event_to_proto(ev.TaskEvent("t", 3, NOW, "0" * 32, passed))
    assert wire.WhichOneof("payload") == "deadline_passed"
    assert wire.deadline_passed == events_pb2.DeadlinePassed(
        request_id="call_1",
        kind="approval",
        tool_name="send_money",
        outcome="escalated",
        approver_roles=["ops"],
        deadline=wire.deadline_passed.deadline,
    )
    assert wire.deadline_passed.deadline.ToDatetime(UTC) == deadline
    shown = convert_events.event_to_proto(ev.TaskEvent("t", 2, NOW, "0" * 32, asked))
    assert list(shown.approval_requested.approver_roles) == ["finance"]
    assert shown.approval_requested.deadline.ToDatetime(UTC) == NOW
