"""Approval slots in this process: a future per waiting call."""

from __future__ import annotations

import asyncio

from core.errors import ApprovalNotPendingError
from records.tools.approvals import ApprovalDecision


class InMemoryApprovalBox:
    """One process: a future per waiting call."""

    def __init__(self) -> None:
        self._slots: dict[tuple[str, str], tuple[str, asyncio.Future[ApprovalDecision]]] = {}

    async def open(self, tenant: str, task_id: str, call_id: str, ttl_seconds: float) -> None:
        future: asyncio.Future[ApprovalDecision] = asyncio.get_running_loop().create_future()
        self._slots[(task_id, call_id)] = (tenant, future)

    async def decide(
        self, tenant: str, task_id: str, call_id: str, decision: ApprovalDecision
    ) -> None:
        slot = self._slots.get((task_id, call_id))
        if slot is None or slot[0] != tenant or slot[1].done():
            raise ApprovalNotPendingError(task_id, call_id)
        slot[1].set_result(decision)

    async def wait(self, task_id: str, call_id: str) -> ApprovalDecision:
        slot = self._slots.get((task_id, call_id))
        if slot is None:
            raise ApprovalNotPendingError(task_id, call_id)
        return await asyncio.shield(slot[1])

    async def close(self, task_id: str, call_id: str) -> None:
        self._slots.pop((task_id, call_id), None)
