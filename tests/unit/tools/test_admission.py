"""The registry's two steps: `admit` answers allowed, needs approval or denied (with the
policy's rule) and writes nothing for those; `run` runs an allowed call and audits and
refuses the others; a person's decision goes through `decided`."""

from __future__ import annotations

import pytest

from core.errors import PermissionDeniedError
from core.identity import CallContext, Principal
from records.tools.approvals import ApprovalDecision
from records.tools.invocation import Invocation
from records.tools.model import PermissionLevel
from records.tools.outcomes import ToolCallResult, ToolErrorKind
from stores.audit.memory import InMemoryAuditLog
from tests.unit.tools.test_registry import Scripted
from tools.admission import Verdict
from tools.permissions import LevelPolicy
from tools.registry import ToolRegistry

CTX = CallContext(Principal("alice", "acme"), "0" * 32)


def _registry(audit: InMemoryAuditLog) -> ToolRegistry:
    tools = [Scripted("ok", "ok"), Scripted("admin", "ok", permission=PermissionLevel.ADMIN)]
    policy = LevelPolicy(PermissionLevel.WRITE, approval_tools=frozenset({"ok"}))
    return ToolRegistry(tools, policy=policy, audit=audit)


async def test_admission_decides_and_run_refuses_what_was_not_allowed() -> None:
    audit = InMemoryAuditLog()
    registry = _registry(audit)

    denied = await registry.admit(Invocation.of("admin", {"n": 1}), CTX)
    waiting = await registry.admit(Invocation.of("ok", {"n": 1}), CTX)

    assert (denied.verdict, denied.rule) == (Verdict.DENIED, "level:write")
    assert (waiting.verdict, waiting.rule) == (Verdict.NEEDS_APPROVAL, "level:write")
    assert audit.records == []  # deciding writes nothing; the run step audits
    with pytest.raises(PermissionDeniedError):
        await registry.run(denied)
    with pytest.raises(PermissionDeniedError, match="only a task"):
        await registry.run(waiting)  # nobody waited for a person: refused
    assert [(r.outcome, r.rule) for r in audit.records] == [
        ("denied", "level:write"),
        ("denied", "level:write:approval"),
    ]


async def test_a_persons_decision_goes_through_decided() -> None:
    audit = InMemoryAuditLog()
    registry = _registry(audit)
    invocation = Invocation.of("ok", {"n": 1, "token": "hunter2"})
    admission = await registry.admit(invocation, CTX)

    rejected = await registry.decided(admission, ApprovalDecision(False, "carol", "no"))
    edit = ApprovalDecision(True, "carol", "", {"n": 3})
    edited = await registry.decided(admission, edit)

    assert isinstance(rejected, ToolCallResult)
    assert rejected.error is not None
    assert rejected.error.kind is ToolErrorKind.REJECTED
    assert not isinstance(edited, ToolCallResult)
    assert edited.verdict is Verdict.ALLOWED
    assert edited.invocation.call_id == invocation.call_id
    result = await registry.run(edited)
    assert result.data == {"doubled": 6}
    assert [(r.outcome, r.approval, dict(r.arguments)) for r in audit.records] == [
        ("rejected", "rejected", {"n": 1, "token": "[REDACTED]"}),
        ("ok", "edited", {"n": 3}),
    ]
