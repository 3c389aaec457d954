"""A person's approval for a task to go past a budget's soft limit: a wait of kind
`budget` in slot `budget:<budget id>`, announced as an `approval_requested` event of tool
`budget` and answered with ApproveToolCall, like a tool call's approval.

Approved, the task's calls pass that soft limit (up to the hard limit, if any) for the rest
of the task; denied, or not decided before the wait's deadline, the task stops
(STOP_REASON_BUDGET_EXHAUSTED), or fails when the budget's deadline action is to fail
(`AGENTD_WAIT_DEADLINE_ACTIONS`). A deadline is a timeout, never a person's consent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.limits import LimitReached
from agent.parked import Parked, Waiting
from agent.tool_use.people import DECISIONS, PersonWaits, decision_of
from records import events as ev
from records.tasks import StopReason
from records.usage.budgets import Budget
from records.waits import WaitKind, WaitState

if TYPE_CHECKING:
    from agent.running.run import TaskRun

TOOL = "budget"
PREFIX = "budget:"


def slot_of(budget: Budget) -> str:
    return PREFIX + budget.budget_id


async def past_soft_limit(run: TaskRun, budget: Budget) -> None:
    """Return once a person let the task past `budget`'s soft limit; Parked until one
    decided; LimitReached (BUDGET_EXHAUSTED) when they denied it or its deadline passed."""
    described = budget.described
    if not run.state.can_wait:
        raise LimitReached(
            StopReason.BUDGET_EXHAUSTED,
            f"{described}: its soft limit of {budget.soft_limit:,} is reached, and this work "
            f"cannot wait for a person's approval",
        )
    slot = slot_of(budget)
    people = PersonWaits(run)
    waiting = f"waiting for approval to go past the soft limit of {described}"
    shown = {
        "budget_id": budget.budget_id,
        "scope": budget.scope.value,
        "subject": budget.subject,
        "unit": budget.unit.value,
        "window": budget.window.value,
        "soft_limit": budget.soft_limit,
        "limit": budget.limit,
    }
    wait, new = await people.open(WaitKind.BUDGET, slot, tool_name=TOOL, detail=described)
    if new:
        reason = f"the next model call would go past the soft limit of {described}"
        asked = ev.ApprovalRequested(slot, TOOL, shown, reason, wait.roles, wait.deadline_at)
        await people.announce(waiting, asked)
    if wait.state is WaitState.OPEN:
        raise Parked([Waiting(WaitKind.BUDGET, slot, True, detail=waiting)])
    if wait.timed_out:  # its deadline passed: never consent
        await people.timed_out(wait, f"no decision on {described} came before its deadline")
        raise LimitReached(
            StopReason.BUDGET_EXHAUSTED,
            f"no decision to go past the soft limit of {described} came before its deadline",
        )
    decision = decision_of(wait)
    if wait.state is WaitState.ANSWERED:  # announced once, by the pass that takes it in
        label, by = DECISIONS[decision.label], decision.decided_by
        await run.transcript.emit(ev.ApprovalDecided(slot, label, by, decision.comment, None))
        await people.taken(wait)
    await people.no_longer_waiting(f"{decision.label} by {decision.decided_by}")
    if not decision.approved:
        raise LimitReached(
            StopReason.BUDGET_EXHAUSTED,
            f"{decision.decided_by} did not let the task go past the soft limit of {described}",
        )
