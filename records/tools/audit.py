"""Audit records of tool calls, and where they are written.

The registry writes exactly one record for every call it is asked to make,
whatever the outcome: refused, invalid, ran, failed, timed out or crashed; and
one for each attempt of a call it retried (same call id, `attempt` 1, 2, ...).
A call answered from the cache of tool results has one record, `cached` set.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime

from core.identity import CallContext
from records.tools.approvals import ApprovalDecision
from records.tools.invocation import redacted
from records.tools.model import JSONValue


@dataclass(frozen=True, slots=True)
class ToolCallRecord:
    """One tool call, as the audit log keeps it."""

    call_id: str
    """Identifies the call."""
    time: datetime
    """When the call was asked for (UTC)."""
    principal_id: str
    """Who asked."""
    tenant: str
    """The caller's tenant."""
    trace_id: str
    """The trace the call belongs to."""
    tool_name: str
    """The tool asked for."""
    arguments: Mapping[str, JSONValue]
    """The arguments, with secrets redacted."""
    decision: str
    """"allowed" or "denied"."""
    rule: str
    """The policy rule that decided."""
    outcome: str
    """ok, failed, timeout, crashed, outcome_unknown (an MCP server lost mid-call), rejected,
    denied, invalid, refused, unavailable (its MCP server down), not_found, or dispatched
    (a tool the engine runs itself, admitted and handed to it: `ask_user`, a delegation,
    a panel)."""
    result_digest: str
    """SHA-256 of the canonical JSON of the result; empty when there is none."""
    duration_seconds: float
    """How long the tool ran (0 when it did not)."""
    task_id: str = ""
    """The task the call was made for; empty for CallTool."""
    approval: str = ""
    """approved, edited or rejected when a human decided on the call; "timed out: approved"
    or "timed out: denied" when its deadline passed and its approval rule decided; else
    empty."""
    approved_by: str = ""
    """The principal who decided (`records.inbox.steps.DEADLINE_ACTOR` for a timeout)."""
    approval_comment: str = ""
    """What they said."""
    attempt: int = 1
    """Which attempt at running the tool this record is of: a retried call (an idempotent
    tool that failed transiently) has one record per attempt, under the same call id."""
    cached: bool = False
    """The result came from the cache of tool results: the tool did not run."""
    parent_task_id: str = ""
    """For a child task's call: its parent task."""
    root_task_id: str = ""
    """For a child task's call: the top task of its tree."""


def record_of(
    call_id: str,
    started: datetime,
    name: str,
    args: Mapping[str, JSONValue],
    context: CallContext,
    rule: str,
    *,
    allowed: bool = False,
    outcome: str = "denied",
    result: JSONValue = None,
    duration: float = 0.0,
    human_decision: ApprovalDecision | None = None,
    attempt: int = 1,
    cached: bool = False,
) -> ToolCallRecord:
    """The audit record of a call as it stands (secrets in its arguments redacted, unless
    they already were: an invocation's `redacted`)."""
    return ToolCallRecord(
        call_id=call_id,
        time=started,
        principal_id=context.principal.id,
        tenant=context.principal.tenant,
        trace_id=context.trace_id,
        tool_name=name,
        arguments=redacted(args),
        decision="allowed" if allowed else "denied",
        rule=rule,
        outcome=outcome,
        result_digest=digest(result) if result is not None else "",
        duration_seconds=duration,
        task_id=context.task_id,
        approval=human_decision.label if human_decision else "",
        approved_by=human_decision.decided_by if human_decision else "",
        approval_comment=human_decision.comment if human_decision else "",
        attempt=attempt,
        cached=cached,
        parent_task_id=context.parent_task_id,
        root_task_id=context.root_task_id,
    )


def digest(value: JSONValue) -> str:
    """SHA-256 hex digest of the canonical JSON form of `value`."""
    canonical = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()
