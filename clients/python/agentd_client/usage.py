"""The budget, usage and statistics methods of `AgentClient` (a mixin: the client supplies
the channel and the error mapping). Amounts of money are integer micro-units of the
server's currency (the responses' `currency`)."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Any

from google.protobuf import timestamp_pb2

from agentd.v1 import agent_service_pb2_grpc as pb_grpc
from agentd.v1 import usage_pb2


def _stamp(moment: datetime) -> timestamp_pb2.Timestamp:
    stamp = timestamp_pb2.Timestamp()
    stamp.FromDatetime(moment)
    return stamp


class UsageMethods:
    _stub: pb_grpc.AgentServiceStub

    async def _unary(self, call: Any, request: Any, timeout: float | None) -> Any:
        raise NotImplementedError  # AgentClient's

    async def create_budget(
        self,
        scope: usage_pb2.BudgetScope.ValueType,
        unit: usage_pb2.BudgetUnit.ValueType,
        window: usage_pb2.BudgetWindow.ValueType,
        *,
        limit: int = 0,
        soft_limit: int = 0,
        subject: str = "",
        timeout: float | None = None,
    ) -> usage_pb2.Budget:
        """A budget of your tenant (admin role): `scope` TENANT (no subject), USER (the end
        user's principal id) or AGENT (an agent id); `limit` hard, `soft_limit` asks a
        person first; tokens, or micro-units of money; per UTC day, month or all time."""
        budget = usage_pb2.Budget(
            scope=scope,
            subject=subject,
            unit=unit,
            window=window,
            limit=limit,
            soft_limit=soft_limit,
        )
        request = usage_pb2.CreateBudgetRequest(budget=budget)
        created: usage_pb2.Budget = await self._unary(self._stub.CreateBudget, request, timeout)
        return created

    async def update_budget(
        self, budget_id: str, *, limit: int = 0, soft_limit: int = 0, timeout: float | None = None
    ) -> usage_pb2.Budget:
        request = usage_pb2.UpdateBudgetRequest(
            budget_id=budget_id, limit=limit, soft_limit=soft_limit
        )
        updated: usage_pb2.Budget = await self._unary(self._stub.UpdateBudget, request, timeout)
        return updated

    async def delete_budget(
        self, budget_id: str, *, timeout: float | None = None
    ) -> usage_pb2.Budget:
        request = usage_pb2.DeleteBudgetRequest(budget_id=budget_id)
        response: usage_pb2.DeleteBudgetResponse = await self._unary(
            self._stub.DeleteBudget, request, timeout
        )
        return response.budget

    async def list_budgets(
        self, *, page_size: int = 0, page_token: str = "", timeout: float | None = None
    ) -> usage_pb2.ListBudgetsResponse:
        request = usage_pb2.ListBudgetsRequest(page_size=page_size, page_token=page_token)
        response: usage_pb2.ListBudgetsResponse = await self._unary(
            self._stub.ListBudgets, request, timeout
        )
        return response

    async def get_usage(
        self,
        *,
        start: datetime | None = None,
        end: datetime | None = None,
        group_by: Sequence[usage_pb2.UsageGroup.ValueType] = (),
        user: str = "",
        agent: str = "",
        model: str = "",
        provider: str = "",
        page_size: int = 0,
        page_token: str = "",
        timeout: float | None = None,
    ) -> usage_pb2.GetUsageResponse:
        """Your tenant's model calls of [start, end) grouped (auditor or admin role)."""
        request = usage_pb2.GetUsageRequest(
            group_by=list(group_by),
            user=user,
            agent=agent,
            model=model,
            provider=provider,
            page_size=page_size,
            page_token=page_token,
        )
        if start is not None:
            request.start_time.CopyFrom(_stamp(start))
        if end is not None:
            request.end_time.CopyFrom(_stamp(end))
        response: usage_pb2.GetUsageResponse = await self._unary(
            self._stub.GetUsage, request, timeout
        )
        return response

    async def get_stats(
        self,
        *,
        start: datetime | None = None,
        end: datetime | None = None,
        agent: str = "",
        timeout: float | None = None,
    ) -> usage_pb2.GetStatsResponse:
        """Statistics of your tenant's tasks of [start, end) (auditor or admin role)."""
        request = usage_pb2.GetStatsRequest(agent=agent)
        if start is not None:
            request.start_time.CopyFrom(_stamp(start))
        if end is not None:
            request.end_time.CopyFrom(_stamp(end))
        response: usage_pb2.GetStatsResponse = await self._unary(
            self._stub.GetStats, request, timeout
        )
        return response
