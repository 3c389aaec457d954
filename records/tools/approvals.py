"""A person's decision on a tool call that needed their approval (a task waits for it:
`agent.tool_use.calls`; the registry takes it: `ToolRegistry.decided`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from records.tools.model import JSONValue


@dataclass(frozen=True, slots=True)
class ApprovalDecision:
    """A human's decision on one tool call."""

    approved: bool
    """False: rejected, the tool does not run."""
    decided_by: str
    """The principal who decided."""
    comment: str = ""
    """What they said, passed on to the model."""
    arguments: Mapping[str, JSONValue] | None = None
    """Arguments the approver replaced the proposed ones with (approved calls only)."""
    timed_out: bool = False
    """Nobody decided: the wait's deadline passed and its approval rule approved or denied
    the call (`decided_by` is then `records.inbox.steps.DEADLINE_ACTOR`)."""

    @property
    def label(self) -> str:
        """approved, edited or rejected, as the audit log records it; "timed out: approved"
        or "timed out: denied" when a deadline, not a person, decided."""
        if self.timed_out:
            return f"timed out: {'approved' if self.approved else 'denied'}"
        if not self.approved:
            return "rejected"
        return "edited" if self.arguments is not None else "approved"
