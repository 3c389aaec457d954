"""A built-in's resumable failure (`ToolFailed(resumable=True)`): the call's error is
RESUMABLE, and it is never retried (a person has to fix the cause first)."""

from __future__ import annotations

from core.identity import CallContext, Principal
from records.tools.model import PermissionLevel
from records.tools.outcomes import ToolErrorKind, ToolFailed
from stores.audit.memory import InMemoryAuditLog
from tests.unit.tools.test_retries import Flaky
from tools.permissions import LevelPolicy
from tools.registry import ToolRegistry


async def test_a_resumable_failure_is_reported_as_such_and_not_retried() -> None:
    failure = ToolFailed("out of credits", resumable=True, transient=True)
    tool = Flaky(5, failure)  # idempotent: a transient failure would be tried again
    audit = InMemoryAuditLog()
    registry = ToolRegistry([tool], policy=LevelPolicy(PermissionLevel.WRITE), audit=audit)
    result = await registry.call("flaky", {}, CallContext(Principal("me", "default"), "0" * 32))
    assert result.error is not None
    assert result.error.kind is ToolErrorKind.RESUMABLE
    assert result.error.message == "out of credits"
    assert tool.runs == 1
