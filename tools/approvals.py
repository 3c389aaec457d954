"""What the registry asks when a call needs a human's approval, and what it gets back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from tools.model import JSONValue, ToolSpec


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

    @property
    def label(self) -> str:
        """approved, edited or rejected, as the audit log records it."""
        if not self.approved:
            return "rejected"
        return "edited" if self.arguments is not None else "approved"


class ApprovalGate(Protocol):
    """Waits for a human's decision on one call; given by whoever can wait (a running task)."""

    async def __call__(
        self, call_id: str, tool: ToolSpec, arguments: Mapping[str, JSONValue], reason: str
    ) -> ApprovalDecision: ...
