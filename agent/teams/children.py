"""A parent's waits for its child tasks, kept as wait records (`records.waits`).

A parent opens a wait for each child before the child can end (so that the child's end
always finds it), then parks while the child works (`agent.parked.Parked`): its running
place is free for the child. The child's end answers the wait and wakes the parent
(`agent.scheduling.parking`), on any replica; the woken parent makes the same call
again, re-attaches to the child and takes its end in. A child that starts or stops
waiting for a person nudges its parent's wait: the woken parent relays it
(`subtask_waiting`; INPUT_REQUIRED while any child waits for a person) and parks again.
A wait that passes its deadline cancels the child: the model is told (DENY), or the
parent fails (FAIL).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from agent.failures import WaitExpiredError
from agent.parked import Parked, Waiting
from agent.tool_use.people import PersonWaits
from records import events as ev
from records.tasks import Task
from records.waits import Wait, WaitAction, WaitKind, WaitState

MEMBER = "/member-"
"""What a panel member's call key adds to its panel's call's."""

if TYPE_CHECKING:
    from agent.running.run import TaskRun
    from agent.teams.base import ChildTasks


async def open_wait(run: TaskRun, child: Task, tool: str, goal: str) -> None:
    """The parent's wait for `child`, opened as it starts (before it can end)."""
    if run.state.can_wait:
        await PersonWaits(run).open(WaitKind.CHILD, child.task_id, tool_name=tool, detail=goal)


async def working(run: TaskRun) -> list[Wait]:
    """The task's waits for its children that have not ended (open)."""
    store = run.state.waits
    if store is None:
        return []
    found = await store.of_task(run.task.task_id)
    return [w for w in found if w.kind is WaitKind.CHILD and w.state is WaitState.OPEN]


async def wait(run: TaskRun, tasks: ChildTasks, child: Task, call_key: str) -> Task:
    """`child` once it has ended; Parked while it works (its waits for a person relayed).

    The child's state is read after its wait is open: an end that comes later answers
    the wait (and wakes the parent), one that came earlier is seen here."""
    if not run.state.can_wait:  # nothing to wait with (never for a stored task)
        return child
    wait_, _ = await PersonWaits(run).open(WaitKind.CHILD, child.task_id)
    child = await tasks.find(run.task.tenant, child.task_id)
    people = PersonWaits(run)
    if child.status.terminal:  # its end answered the wait, or came before it was open
        await people.settle(WaitKind.CHILD, child.task_id, {"status": child.status.value})
        if _relayed(run, call_key):  # it waited for a person, and has ended: RUNNING again
            await people.no_longer_waiting(f"its child task {child.task_id} ended")
        return child
    if wait_.done and wait_.answer is None:  # its deadline passed
        await _expired(run, tasks, wait_, child)
        return await tasks.find(run.task.tenant, child.task_id)
    relayed = _relayed(run, call_key)
    asking = await _asking(run, child)
    agent = child.agent.reference if child.agent is not None else "the default agent"
    waiting = f"its child task {child.task_id} ({agent}) waits for a person"
    for slot, (kind, asked) in asking.items():
        if slot not in relayed:  # INPUT_REQUIRED, then what the child asks
            relay = ev.SubtaskWaiting(child.task_id, kind, slot, asked)
            await PersonWaits(run).announce(f"{waiting}: {asked}"[:500], relay)
    person = bool(asking)
    detail = waiting if person else f"waiting for its child task {child.task_id} ({agent})"
    raise Parked(
        [Waiting(WaitKind.CHILD, child.task_id, person, wait_.changes, detail)],
        relayed=tuple(sorted(asking)),
    )


def _relayed(run: TaskRun, call_key: str) -> set[str]:
    """The child's waits for a person the call that started it relayed already."""
    entry = run.tools.journal.get(call_key.split(MEMBER)[0])  # the call that started it
    return set(entry.relayed) if entry is not None else set()


async def _asking(run: TaskRun, child: Task) -> dict[str, tuple[Literal["approval", "input"], str]]:
    """The child's open waits for a person: slot -> (kind, what is asked)."""
    store = run.state.waits
    assert store is not None
    found: dict[str, tuple[Literal["approval", "input"], str]] = {}
    for w in await store.of_task(child.task_id):
        if w.state is WaitState.OPEN and w.kind.for_person:
            kind: Literal["approval", "input"] = (
                "approval" if w.kind is WaitKind.APPROVAL else "input"
            )
            found[w.slot] = (kind, w.tool_name or w.detail)
    return found


async def _expired(run: TaskRun, tasks: ChildTasks, wait_: Wait, child: Task) -> None:
    """The wait for `child` passed its deadline: the child is cancelled, and the task fails
    (FAIL) or goes on with the child's end as what it had (DENY)."""
    why = f"its child task {child.task_id} did not end before the wait's deadline"
    await tasks.cancel_quietly(run.task.tenant, child.task_id, why)
    await PersonWaits(run).taken(wait_)
    if wait_.on_deadline is not WaitAction.DENY:
        raise WaitExpiredError(why)
