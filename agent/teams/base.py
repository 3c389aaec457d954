"""What the team modules share, below all of them: the engine as delegation sees it
(`ChildTasks`). A run's team calls as the run, its tool calls and its panels use them
are `agent.running.seams.RunTeam`, one floor down."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol

from core.identity import CallContext
from records import events as ev
from records.requests import TaskRequest
from records.tasks import Task


class ChildTasks(Protocol):
    """What delegation needs of the engine (`agent.engine.Engine`)."""

    async def start(self, request: TaskRequest, call: CallContext) -> Task: ...

    async def find(self, tenant: str, task_id: str) -> Task: ...

    async def cancel_quietly(self, tenant: str, task_id: str, reason: str) -> None: ...

    def events(self, tenant: str, task_id: str) -> AsyncIterator[ev.TaskEvent]: ...
