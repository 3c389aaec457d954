"""Child tasks run on remote A2A agents: what the engine needs of whatever calls them.

A child task whose agent has `remote` set (`agent.scheduling.intake.remote_agent`) runs no model:
its run hands the task's text to the remote agent and waits for its end
(`server.a2a.remote` calls it through the official A2A SDK's client). Cancelling the
child cancels the asyncio task running it, which cancels the remote task. A failure is
`agent.failures.RemoteAgentError` (the child ends FAILED, its parent's model is told).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from agent.running.answers import Outcome
    from agent.running.run import TaskRun
    from records.agents.remote_keys import RemoteDelegate
    from records.tasks import Task
    from records.waits import Wait


class RemoteAgents(Protocol):
    async def run(self, run: TaskRun, remote: RemoteDelegate) -> Outcome:
        """The remote agent's answer to `run`'s task; RemoteAgentError when it failed;
        Parked while the remote task works longer than it is followed live, or waits for
        a person (its question or approval is the child's, answered through agentd)."""
        ...

    async def check(self, task: Task, wait: Wait) -> bool:
        """Whether the remote task a parked child waits for (`wait`, of kind REMOTE)
        moved on (ended, or asks for something): the child is then woken."""
        ...
