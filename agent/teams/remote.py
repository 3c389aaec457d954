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
    from agent.modes import Outcome
    from agent.running.run import TaskRun
    from records.agents.remote_keys import RemoteDelegate


class RemoteAgents(Protocol):
    async def run(self, run: TaskRun, remote: RemoteDelegate) -> Outcome:
        """The remote agent's answer to `run`'s task; RemoteAgentError when it failed."""
        ...
