"""Errors of budgets: one that has no room, one that is not there, one already there."""

from __future__ import annotations

from core.errors.base import AgentdError, FieldViolation, ResourceExhaustedError


class BudgetExhaustedError(ResourceExhaustedError):
    """A budget the task draws on has no room: the task cannot start (or its call cannot
    go). Retry once the budget's window starts afresh (`retry_after_seconds`, None for a
    budget over all time) or its limit is raised."""

    reason = "BUDGET_EXHAUSTED"

    def __init__(self, budget_id: str, described: str, retry_after_seconds: float | None) -> None:
        self.budget_id = budget_id
        self.described = described
        self._retry_after_budget = retry_after_seconds
        super().__init__(f"{described} is used up", retry_after_seconds or 0.0)
        self.metadata["budget_id"] = budget_id

    @property
    def retry_after_seconds(self) -> float | None:
        return self._retry_after_budget

    @property
    def quota_violations(self) -> tuple[FieldViolation, ...]:
        return (FieldViolation(f"budget:{self.budget_id}", f"{self.described} is used up"),)


class BudgetNotFoundError(AgentdError):
    """No budget of that id in the caller's tenant."""

    reason = "BUDGET_NOT_FOUND"

    def __init__(self, budget_id: str) -> None:
        super().__init__(f"no budget {budget_id!r}", metadata={"budget_id": budget_id})


class BudgetExistsError(AgentdError):
    """The tenant has a budget of that scope, subject, unit and window."""

    reason = "BUDGET_EXISTS"

    def __init__(self, budget_id: str) -> None:
        super().__init__(
            f"the tenant has a budget of that scope, subject, unit and window: {budget_id!r}",
            metadata={"budget_id": budget_id},
        )
