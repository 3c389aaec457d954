"""The registry's answer before a tool runs: may this invocation run, and by which rule.

`ToolRegistry.admit` checks an invocation (the tool exists, the arguments' size, the
policy, the schema) and returns an `Admission`: allowed, needs a person's approval, or
denied, with the policy's decision. `ToolRegistry.run` then runs an allowed one (and
audits and refuses the others). Waiting for a person is the caller's business (a task
waits; CallTool cannot): `ToolRegistry.decided` takes the person's decision.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from datetime import datetime

from core.errors import PermissionDeniedError
from core.identity import CallContext
from records.tools.approvals import ApprovalDecision
from records.tools.invocation import Invocation
from records.tools.model import Tool
from tools.calls import ToolCall
from tools.guarding import CallGuard
from tools.permissions import Decision


class Verdict(enum.Enum):
    """What the admission of a call came to."""

    ALLOWED = "allowed"
    NEEDS_APPROVAL = "needs_approval"
    """Allowed once a person approves it (a task can wait for one; CallTool cannot)."""
    DENIED = "denied"


@dataclass(frozen=True, slots=True)
class Admission:
    """An invocation the registry checked: the tool it runs as and the policy's decision."""

    invocation: Invocation
    tool: Tool
    """The tool (as the caller was given it, for a task)."""
    context: CallContext
    started: datetime
    """When the call was asked for (its audit records' time)."""
    decision: Decision
    """The policy's decision, with its rule."""
    human: ApprovalDecision | None = None
    """A person's decision on the call, when it needed one."""
    guard: CallGuard | None = field(default=None, compare=False)
    """The guardrails the call is made under (`tools.guarding`); None: none."""

    @property
    def verdict(self) -> Verdict:
        if not self.decision.allowed:
            return Verdict.DENIED
        if self.decision.needs_approval and self.human is None:
            return Verdict.NEEDS_APPROVAL
        return Verdict.ALLOWED

    @property
    def rule(self) -> str:
        return self.decision.rule

    def call(self, decision: Decision | None = None) -> ToolCall:
        """The call as its audit records show it (under `decision`, if given)."""
        return ToolCall(
            self.invocation,
            self.started,
            self.context,
            known=True,
            decision=decision or self.decision,
            human_decision=self.human,
        )

    def refusal(self, decision: Decision | None = None) -> PermissionDeniedError:
        decision = decision or self.decision
        return PermissionDeniedError(
            self.invocation.name, self.tool.spec.permission.name, decision.rule, decision.reason
        )

    def unapproved(self) -> Decision:
        """The decision on a call that needs approval when nobody can wait for it."""
        return Decision(
            False,
            self.decision.rule + ":approval",
            reason=f"{self.decision.reason}; only a task (Execute) can wait for it",
        )
