"""The events of a task's waits for a person (`agent.tool_use.people`): what it asks (a
call's approval, an answer to its agent's question, ResumeTask after a call a person can
fix), what a person answered, and what a deadline did when nobody did. Members of the one
event union, `records.events.EventPayload`."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal


@dataclass(frozen=True, slots=True)
class ToolCallResumable:
    """A tool call failed for a reason a person can fix: the task waits for ResumeTask
    until `resume_by`, then runs that call again (or ends FAILED: TOOL_RESUMABLE)."""

    call_id: str
    tool_name: str
    message: str
    resume_by: datetime
    type: Literal["tool_resumable"] = "tool_resumable"


@dataclass(frozen=True, slots=True)
class ApprovalRequested:
    call_id: str
    tool_name: str
    arguments: dict[str, Any]
    reason: str
    approver_roles: tuple[str, ...] = ()
    """The roles whose holders may decide."""
    deadline: datetime | None = None
    """When the call stops waiting unanswered (`DeadlinePassed`)."""
    type: Literal["approval_requested"] = "approval_requested"


@dataclass(frozen=True, slots=True)
class DeadlinePassed:
    """A wait for a person passed its deadline with nobody's answer: a timeout, never a
    person's decision. An approval's call is refused or run ("denied", "approved") or moves
    to other roles ("escalated", with `approver_roles` and their `deadline`); a question's
    call fails ("denied"); the task fails or is cancelled ("failed", "cancelled")."""

    request_id: str
    """The call id (approval), request id (question) or wait (resume, budget)."""
    kind: str
    """approval, question, resume or budget."""
    tool_name: str
    outcome: str
    approver_roles: tuple[str, ...] = ()
    deadline: datetime | None = None
    type: Literal["deadline_passed"] = "deadline_passed"


@dataclass(frozen=True, slots=True)
class InputRequested:
    """The agent asked the caller a question; the task waits for `ProvideInput`."""

    request_id: str
    question: str
    type: Literal["input_requested"] = "input_requested"


@dataclass(frozen=True, slots=True)
class InputProvided:
    request_id: str
    provided_by: str
    text: str
    type: Literal["input_provided"] = "input_provided"


@dataclass(frozen=True, slots=True)
class ApprovalDecided:
    call_id: str
    decision: Literal["approve", "reject", "edit"]
    decided_by: str
    comment: str
    arguments: dict[str, Any] | None = None
    type: Literal["approval_decided"] = "approval_decided"
