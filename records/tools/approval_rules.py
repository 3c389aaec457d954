"""Approval rules: who decides on a call that needs a person's approval, by when, and what a
deadline that passes does.

A grant that requires approval may carry one (`Grant.approval`); `AGENTD_APPROVAL_RULE` is
the server's, for calls that need approval through `AGENTD_APPROVAL_TOOLS` and for grants
without a rule of their own. The call's wait (`records.waits`) is opened for the rule's
roles with its deadline; at the deadline it is refused, run, moved to other roles with a
new deadline (once), or its task fails or is cancelled, each recorded as a timeout, never
as a person's decision. A reminder may go out a while before each deadline.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from core.names import roles_problem
from records.waits import WaitAction

MAX_DEADLINE_SECONDS = 366 * 86_400.0
"""The longest deadline a rule may set (a task's wait limit caps it anyway)."""
FIRST_ACTIONS = (
    WaitAction.DENY,
    WaitAction.APPROVE,
    WaitAction.ESCALATE,
    WaitAction.FAIL,
    WaitAction.CANCEL,
)
"""What a rule's first deadline may do."""
LAST_ACTIONS = (WaitAction.DENY, WaitAction.APPROVE, WaitAction.FAIL, WaitAction.CANCEL)
"""What the deadline after an escalation may do (it escalates no further)."""


class ApprovalRuleError(ValueError):
    """A rule that cannot be: each problem as (field, what is wrong)."""

    def __init__(self, problems: list[tuple[str, str]]) -> None:
        self.problems = problems
        super().__init__("; ".join(f"{name} {what}" for name, what in problems))


@dataclass(frozen=True, slots=True)
class ApprovalRule:
    """Who decides on a call that needs approval, by when, and what its deadline does."""

    approver_roles: tuple[str, ...] = ()
    """Roles whose holders may decide; empty: the role table's approver roles."""
    deadline_seconds: float | None = None
    """How long the call waits for a decision; None: as long as its task may wait (its
    wait limit, which caps this too)."""
    on_deadline: WaitAction = WaitAction.DENY
    """What the deadline does: DENY, APPROVE, ESCALATE, FAIL or CANCEL."""
    escalate_to_roles: tuple[str, ...] = ()
    """ESCALATE: the roles the call moves to."""
    escalation_deadline_seconds: float | None = None
    """ESCALATE: how long they have."""
    on_escalation_deadline: WaitAction = WaitAction.DENY
    """ESCALATE: what that deadline does (DENY, APPROVE, FAIL or CANCEL)."""
    remind_before_seconds: float | None = None
    """A reminder this long before each deadline; None: none."""

    def __post_init__(self) -> None:
        problems = self.problems()
        if problems:
            raise ApprovalRuleError(problems)

    @property
    def escalates(self) -> bool:
        return self.on_deadline is WaitAction.ESCALATE

    def problems(self) -> list[tuple[str, str]]:
        """What is wrong with the rule, as (field, what); empty when nothing is."""
        found: list[tuple[str, str]] = []
        for name in ("approver_roles", "escalate_to_roles"):
            roles = getattr(self, name)
            problem = roles_problem(list(roles))
            if problem is not None:
                found.append((name, problem))
            elif len(set(roles)) != len(roles):
                found.append((name, "names a role twice"))
        durations = ("deadline_seconds", "escalation_deadline_seconds", "remind_before_seconds")
        for name in durations:
            seconds = getattr(self, name)
            if seconds is not None and not 0 < seconds <= MAX_DEADLINE_SECONDS:
                found.append((name, f"must be more than 0 and at most {MAX_DEADLINE_SECONDS:g}"))
        timed = not any(name in durations for name, _ in found)
        if self.on_deadline not in FIRST_ACTIONS:
            found.append(("on_deadline", "is not deny, approve, escalate, fail or cancel"))
        if self.on_escalation_deadline not in LAST_ACTIONS:
            found.append(("on_escalation_deadline", "is not deny, approve, fail or cancel"))
        if self.escalates:
            if not self.escalate_to_roles:
                found.append(("escalate_to_roles", "must name a role to escalate to"))
            if self.escalation_deadline_seconds is None:
                found.append(("escalation_deadline_seconds", "is needed to escalate"))
            if self.deadline_seconds is None:
                found.append(("deadline_seconds", "is needed to escalate (when to)"))
        elif (
            self.escalate_to_roles
            or self.escalation_deadline_seconds is not None
            or self.on_escalation_deadline is not WaitAction.DENY
        ):
            found.append(("on_deadline", "must be escalate for the escalation's fields to count"))
        before = self.remind_before_seconds
        if before is not None and timed:
            deadlines = [self.deadline_seconds]
            if self.escalates:
                deadlines.append(self.escalation_deadline_seconds)
            if any(d is not None and before >= d for d in deadlines):
                found.append(("remind_before_seconds", "must be shorter than each deadline"))
        return found


_FIELDS = {
    "approver_roles",
    "deadline_seconds",
    "on_deadline",
    "escalate_to_roles",
    "escalation_deadline_seconds",
    "on_escalation_deadline",
    "remind_before_seconds",
}


def rule_to_json(rule: ApprovalRule) -> dict[str, Any]:
    """The rule as a JSON object (what `rule_from_json` reads back); unset fields left out."""
    out: dict[str, Any] = {"on_deadline": rule.on_deadline.value}
    if rule.approver_roles:
        out["approver_roles"] = list(rule.approver_roles)
    if rule.deadline_seconds is not None:
        out["deadline_seconds"] = rule.deadline_seconds
    if rule.escalates:
        out["escalate_to_roles"] = list(rule.escalate_to_roles)
        out["escalation_deadline_seconds"] = rule.escalation_deadline_seconds
        out["on_escalation_deadline"] = rule.on_escalation_deadline.value
    if rule.remind_before_seconds is not None:
        out["remind_before_seconds"] = rule.remind_before_seconds
    return out


def rule_from_json(value: object) -> ApprovalRule:
    """A rule from its JSON object (or the text of one), e.g. `{"approver_roles":
    ["approver"], "deadline_seconds": 300, "on_deadline": "escalate", "escalate_to_roles":
    ["ops"], "escalation_deadline_seconds": 600, "on_escalation_deadline": "deny",
    "remind_before_seconds": 60}`; ApprovalRuleError names each problem."""
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError as bad:
            raise ApprovalRuleError([("rule", f"is not JSON ({bad})")]) from None
    if not isinstance(value, Mapping):
        raise ApprovalRuleError([("rule", "is not a JSON object")])
    problems = [(str(k), "is not a field of a rule") for k in value if k not in _FIELDS]
    fields: dict[str, Any] = {}
    for name in ("approver_roles", "escalate_to_roles"):
        roles = value.get(name, [])
        if isinstance(roles, list) and all(isinstance(r, str) for r in roles):
            fields[name] = tuple(roles)
        else:
            problems.append((name, "is not a list of role names"))
    for name in ("deadline_seconds", "escalation_deadline_seconds", "remind_before_seconds"):
        seconds = value.get(name)
        if seconds is None:
            continue
        if isinstance(seconds, int | float) and not isinstance(seconds, bool):
            fields[name] = float(seconds) if math.isfinite(seconds) else math.inf
        else:
            problems.append((name, "is not a number of seconds"))
    actions = {action.value: action for action in WaitAction}
    for name in ("on_deadline", "on_escalation_deadline"):
        said = value.get(name, WaitAction.DENY.value)
        if isinstance(said, str) and said.lower() in actions:
            fields[name] = actions[said.lower()]
        else:
            problems.append((name, f"is not one of {', '.join(actions)}"))
    if problems:
        raise ApprovalRuleError(problems)
    return ApprovalRule(**fields)
