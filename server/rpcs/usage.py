"""Budgets, usage reports and statistics of the caller's tenant."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import ClassVar

from agentd.v1 import usage_pb2
from core.identity import CallContext
from records.paging import PositionCursor
from server.calls import unary
from server.convert import pages
from server.convert import usage as convert
from server.rpcs.common import required_id
from server.services.usage import BudgetStanding, UsageService

MAX_PAGE = 1_000
DEFAULT_PAGE = 100


class UsageRpcs:
    RPCS: ClassVar[tuple[str, ...]] = (
        "CreateBudget",
        "UpdateBudget",
        "DeleteBudget",
        "ListBudgets",
        "GetUsage",
        "GetStats",
    )

    def __init__(self, usage: UsageService) -> None:
        self._usage = usage

    def _budget(self, standing: BudgetStanding) -> usage_pb2.Budget:
        now = datetime.now(UTC)
        return convert.budget_to_proto(standing.budget, standing.counter, self._usage.currency, now)

    @unary
    async def CreateBudget(  # noqa: N802 - gRPC method name
        self, request: usage_pb2.CreateBudgetRequest, call: CallContext
    ) -> usage_pb2.Budget:
        draft = convert.budget_from_proto(request.budget)
        return self._budget(await self._usage.create_budget(call.principal, draft))

    @unary
    async def UpdateBudget(  # noqa: N802
        self, request: usage_pb2.UpdateBudgetRequest, call: CallContext
    ) -> usage_pb2.Budget:
        budget_id = required_id(request.budget_id, "budget_id")
        limit, soft = convert.limits_from_proto(request.limit, request.soft_limit)
        return self._budget(await self._usage.update_budget(call.principal, budget_id, limit, soft))

    @unary
    async def DeleteBudget(  # noqa: N802
        self, request: usage_pb2.DeleteBudgetRequest, call: CallContext
    ) -> usage_pb2.DeleteBudgetResponse:
        budget_id = required_id(request.budget_id, "budget_id")
        deleted = await self._usage.delete_budget(call.principal, budget_id)
        return usage_pb2.DeleteBudgetResponse(budget=self._budget(deleted))

    @unary
    async def ListBudgets(  # noqa: N802
        self, request: usage_pb2.ListBudgetsRequest, call: CallContext
    ) -> usage_pb2.ListBudgetsResponse:
        size = pages.page_size(request.page_size, DEFAULT_PAGE, MAX_PAGE)
        after = pages.key_cursor(request.page_token)
        page = await self._usage.list_budgets(call.principal, size, after)
        return usage_pb2.ListBudgetsResponse(
            budgets=[self._budget(b) for b in page.items], next_page_token=pages.token(page.next)
        )

    @unary
    async def GetUsage(  # noqa: N802
        self, request: usage_pb2.GetUsageRequest, call: CallContext
    ) -> usage_pb2.GetUsageResponse:
        size = pages.page_size(request.page_size, DEFAULT_PAGE, MAX_PAGE)
        cursor = pages.position_cursor(request.page_token)
        offset = cursor.position if cursor is not None else 0
        query = convert.usage_query(request, call.principal.tenant, size, offset)
        report = await self._usage.usage(call.principal, query)
        following = pages.token(PositionCursor(offset + len(report.rows))) if report.more else ""
        return usage_pb2.GetUsageResponse(
            rows=[convert.usage_row_to_proto(r) for r in report.rows],
            next_page_token=following,
            total=convert.usage_row_to_proto(report.total),
            currency=self._usage.currency,
        )

    @unary
    async def GetStats(  # noqa: N802
        self, request: usage_pb2.GetStatsRequest, call: CallContext
    ) -> usage_pb2.GetStatsResponse:
        query = convert.stats_query(request, call.principal.tenant, self._usage.max_stats_rows)
        stats = await self._usage.stats(call.principal, query)
        return convert.stats_to_proto(stats, self._usage.currency)
