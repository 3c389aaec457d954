"""Tool calls waiting for a human: where a decision is left and where a task finds it.

A task that needs approval opens a slot for the call, announces it with an
`approval_requested` event, and waits; `ApproveToolCall` (on any replica)
leaves the decision in the slot. Each slot takes one decision: a second one,
or one for a call that never asked, is refused.
"""

from __future__ import annotations

from typing import Protocol

from records.tools.approvals import ApprovalDecision

POLL_SECONDS = 0.2


class ApprovalBox(Protocol):
    async def open(self, tenant: str, task_id: str, call_id: str, ttl_seconds: float) -> None:
        """Accept one decision on this call from now on."""
        ...

    async def decide(
        self, tenant: str, task_id: str, call_id: str, decision: ApprovalDecision
    ) -> None:
        """Leave the decision; ApprovalNotPendingError unless the call waits undecided."""
        ...

    async def wait(self, task_id: str, call_id: str) -> ApprovalDecision:
        """The decision, once one was left."""
        ...

    async def close(self, task_id: str, call_id: str) -> None:
        """Forget the call (decided, or the task stopped waiting)."""
        ...
