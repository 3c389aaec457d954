"""Auto mode's router handing a whole task to one of its agent's delegates
(`agent.modes.llm_router`): the task's goal runs as that agent's child task, and the
child's answer is the task's. The child is started like any delegation (its own stream,
a share of the budget, `subtask_*` events; re-attached to after a takeover)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent.parked import Parked
from agent.running.answers import Outcome
from records.checkpoints import JournalEntry
from records.tasks import TaskStatus
from tools.registry import new_call_id

if TYPE_CHECKING:
    from agent.running.run import TaskRun

ROUTER_CALL_KEY = "router"
"""The child's key under its parent: one hand-over per task, found again on a resumed run."""


async def hand_to(run: TaskRun, agent_id: str) -> Outcome | None:
    """The answer of `agent_id`'s child task on the task's goal; None when it cannot take
    the task (not a delegate of the task's agent, a limit, or the child did not complete),
    and the task then runs here in the mode the router's rule picks."""
    team = run.team
    if team is None or agent_id not in run.delegates:
        return None
    try:
        child = await team.run_child(new_call_id(), ROUTER_CALL_KEY, agent_id, run.task.goal)
    except Parked as parked:  # the child works: kept, with what the parent relayed of it
        run.tools.journal[ROUTER_CALL_KEY] = JournalEntry(
            "", ROUTER_CALL_KEY, False, waiting=ROUTER_CALL_KEY, relayed=parked.relayed
        )
        raise
    run.tools.journal.pop(ROUTER_CALL_KEY, None)
    if isinstance(child, str) or child.status is not TaskStatus.COMPLETED:
        return None
    return Outcome(child.final_answer)


def handed_to(run: TaskRun) -> str:
    """The agent the task was handed to, when it was (a woken run: its child may still
    work), else ""."""
    suffix = f"/{ROUTER_CALL_KEY}"
    child = next((c for c in run.task.children if c.call_key.endswith(suffix)), None)
    return child.agent.split("@", 1)[0] if child is not None else ""
