"""ReplayTask as the evaluation runner replays recorded cases (`Replayer`): the replay
service every caller's ReplayTask goes through, its report in the runner's words."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from core.identity import CallContext
from records.evals.model import ReplayReport
from records.tasks import Task
from records.traces.replays import ReplayRequest, ReplayTools
from server.services.recorded.replays import ReplayService


@dataclass(frozen=True, slots=True)
class ServiceReplayer:
    replays: ReplayService

    async def replay(
        self, call: CallContext, task_id: str, agent: str, tools: str, labels: Mapping[str, str]
    ) -> Task:
        request = ReplayRequest(task_id, agent, ReplayTools(tools), dict(labels))
        return await self.replays.replay(request, call)

    async def report(self, task: Task) -> ReplayReport | None:
        info = task.replay
        if info is None or not info.ended:
            return None
        gone = info.divergence
        return ReplayReport(
            info.source_task_id,
            info.tools.value,
            gone is not None,
            gone.kind.value if gone is not None else "",
            gone.index if gone is not None else 0,
            gone.recorded if gone is not None else "",
            gone.replayed if gone is not None else "",
            info.recorded_calls,
            info.not_run_calls,
            info.live_calls,
        )
